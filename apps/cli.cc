#include "apps/cli.h"

#include <cerrno>
#include <cstdlib>
#include <sstream>

#include "engine/error.h"

namespace prunex::cli {

std::vector<Command>& registry() {
  static std::vector<Command> commands;
  return commands;
}

Args::Args(const std::vector<Option>& spec, const std::vector<std::string>& argv) {
  auto find = [&](const std::string& name) -> const Option* {
    for (const auto& o : spec)
      if (o.name == name) return &o;
    return nullptr;
  };
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string& tok = argv[i];
    if (tok.size() < 2 || tok[0] != '-' || (tok[1] >= '0' && tok[1] <= '9') || tok[1] == '.') {
      positional_.push_back(tok);
      continue;
    }
    std::string name = tok.substr(tok[1] == '-' ? 2 : 1);
    std::optional<std::string> inline_value;
    if (auto eq = name.find('='); eq != std::string::npos) {
      inline_value = name.substr(eq + 1);
      name = name.substr(0, eq);
    }
    const Option* opt = find(name);
    PRUNEX_USAGE(opt != nullptr, "unknown option '", tok, "' (see --help)");
    if (opt->value_name.empty()) {
      PRUNEX_USAGE(!inline_value, "option --", name, " takes no value");
      values_[name] = "1";
      continue;
    }
    if (inline_value) {
      values_[name] = *inline_value;
    } else {
      PRUNEX_USAGE(i + 1 < argv.size(), "option ", tok, " needs a value (", opt->value_name, ")");
      values_[name] = argv[++i];
    }
  }
}

std::optional<std::string> Args::get(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) return std::nullopt;
  return it->second;
}

std::string Args::get_or(const std::string& name, const std::string& fallback) const {
  auto v = get(name);
  return v ? *v : fallback;
}

long Args::get_int(const std::string& name, long fallback) const {
  auto v = get(name);
  if (!v) return fallback;
  errno = 0;
  char* end = nullptr;
  long x = std::strtol(v->c_str(), &end, 10);
  PRUNEX_USAGE(!v->empty() && *end == '\0' && errno == 0, "option --", name,
               " expects an integer, got '", *v, "'");
  return x;
}

double Args::get_double(const std::string& name, double fallback) const {
  auto v = get(name);
  if (!v) return fallback;
  errno = 0;
  char* end = nullptr;
  double x = std::strtod(v->c_str(), &end);
  PRUNEX_USAGE(!v->empty() && *end == '\0' && errno == 0, "option --", name,
               " expects a number, got '", *v, "'");
  return x;
}

std::size_t parse_size(const std::string& text, const std::string& what) {
  PRUNEX_USAGE(!text.empty(), what, " is empty");
  char* end = nullptr;
  errno = 0;
  double x = std::strtod(text.c_str(), &end);
  std::string suffix(end);
  double mult = 1;
  if (suffix == "K" || suffix == "k" || suffix == "KiB")
    mult = 1024.0;
  else if (suffix == "M" || suffix == "MiB")
    mult = 1024.0 * 1024;
  else if (suffix == "G" || suffix == "GiB")
    mult = 1024.0 * 1024 * 1024;
  else
    PRUNEX_USAGE(suffix.empty() || suffix == "B", what, ": bad size '", text,
                 "' (e.g. 64K, 1M, 1G)");
  PRUNEX_USAGE(errno == 0 && x >= 0, what, ": bad size '", text, "'");
  return static_cast<std::size_t>(x * mult);
}

std::size_t Args::get_size(const std::string& name, std::size_t fallback) const {
  auto v = get(name);
  if (!v) return fallback;
  return parse_size(*v, (name.size() == 1 ? "option -" : "option --") + name);
}

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

std::string help_text(const Command& c) {
  std::ostringstream os;
  os << "usage: " << c.usage << "\n\n" << c.description << "\n";
  if (!c.options.empty()) {
    os << "\noptions:\n";
    for (const auto& o : c.options) {
      std::string lhs = (o.name.size() == 1 ? "-" : "--") + o.name;
      if (!o.value_name.empty()) lhs += " " + o.value_name;
      os << "  " << lhs;
      if (lhs.size() < 26)
        os << std::string(26 - lhs.size(), ' ');
      else
        os << "\n" << std::string(28, ' ');
      os << o.help;
      if (!o.default_value.empty()) os << " (default " << o.default_value << ")";
      os << "\n";
    }
  }
  os << "  --help                    this text\n";
  return os.str();
}

}  // namespace prunex::cli
