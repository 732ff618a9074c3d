#include "apps/cli.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <sstream>

#include "engine/error.h"
#include "engine/text_parse.h"

namespace prunex::cli {

std::vector<Command>& registry() {
  static std::vector<Command> commands;
  return commands;
}

Args::Args(const Command& command, const std::vector<std::string>& all_argv) {
  std::vector<std::string> argv = all_argv;
  if (command.trailing) {
    const auto dashes = std::find(argv.begin(), argv.end(), "--");
    if (dashes != argv.end()) {
      trailing_.assign(dashes + 1, argv.end());
      argv.erase(dashes, argv.end());
    }
  }
  CLI::App app(command.summary, "prunex " + command.name);
  app.set_help_flag();  // main.cc prints help_text() for --help
  app.allow_extras(false);
  // Values that look like negative numbers are values, not options.
  app.allow_windows_style_options(false);
  std::map<std::string, std::string> text;
  std::map<std::string, bool> flags;
  for (const auto& o : command.options) {
    const std::string dashed = (o.name.size() == 1 ? "-" : "--") + o.name;
    if (o.value_name.empty()) {
      app.add_flag(dashed, flags[o.name], o.help)
          ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
    } else {
      app.add_option(dashed, text[o.name], o.help)
          ->type_name(o.value_name)
          ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
    }
  }
  if (!command.positional.empty()) app.add_option(command.positional, positional_);
  std::vector<std::string> reversed(argv.rbegin(), argv.rend());  // CLI11 parses from the back
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    std::string msg = e.what();
    for (char& c : msg)
      if (c == '\n') c = ' ';
    throw UsageError(msg + " (see prunex " + command.name + " --help)");
  }
  for (const auto& o : command.options) {
    if (app.get_option((o.name.size() == 1 ? "-" : "--") + o.name)->count() == 0) continue;
    values_[o.name] = o.value_name.empty() ? "1" : text[o.name];
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

long Args::get_int(const std::string& name, long fallback, long lo, long hi) const {
  auto v = get(name);
  if (!v) return fallback;
  return parse_long(*v, (name.size() == 1 ? "option -" : "option --") + name, lo, hi);
}

double Args::get_double(const std::string& name, double fallback) const {
  auto v = get(name);
  if (!v) return fallback;
  return parse_double(*v, (name.size() == 1 ? "option -" : "option --") + name);
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
  PRUNEX_USAGE(errno == 0 && x >= 0 && x * mult < 9.0e18, what, ": bad size '", text, "'");
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
