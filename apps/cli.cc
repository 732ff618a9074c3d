#include "apps/cli.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <sstream>

#include "engine/error.h"
#include "engine/text_parse.h"
#include "settings/config_fields.h"

namespace prunex::cli {

std::vector<Command>& registry() {
  static std::vector<Command> commands;
  return commands;
}

namespace {
std::vector<std::string>& words_given() {
  static std::vector<std::string> words;
  return words;
}
}  // namespace

void set_command_words(std::vector<std::string> words) {
  words_given() = std::move(words);
}
const std::vector<std::string>& command_words() {
  return words_given();
}

namespace {

std::string dashed(const std::string& name) {
  return (name.size() == 1 ? "-" : "--") + name;
}

// "[lo, hi]" ("(lo, hi]" when open_low), whole bounds printed as integers.
std::string range_text(double lo, double hi, bool open_low) {
  auto num = [](double x) {
    std::ostringstream os;
    os << x;
    return os.str();
  };
  return (open_low ? "(" : "[") + num(lo) + ", " + num(hi) + "]";
}

// A number option's bounds for --help: "[lo, hi]" where hi is small enough to say something,
// else "> lo" or ">= lo"; empty for text, sizes and unbounded numbers.
std::string bounds_text(const Option& o) {
  if (o.kind != Kind::integer && o.kind != Kind::real) return "";
  if (std::isfinite(o.lo) && std::isfinite(o.hi) && o.hi < 1e6)
    return range_text(o.lo, o.hi, o.open_low);
  if (!std::isfinite(o.lo) || o.lo < -1e6) return "";
  std::ostringstream os;
  os << (o.open_low ? "> " : ">= ") << o.lo;
  return os.str();
}

// "a,b" from {a, b} (a list option given as --x a --x b).
std::string joined(const std::vector<std::string>& values, const std::string& separator = ",") {
  std::string out;
  for (const auto& v : values) out += (out.empty() ? "" : separator) + v;
  return out;
}

// A list option's values as given, every time it was given, joined: each value once (the
// same value twice is a typo or a copied line, refused naming it, whatever the option).
std::string list_value(const Option& o, const std::vector<std::string>& given) {
  const std::string all = joined(given);
  std::vector<std::string> seen;
  for (const std::string& v : split_list(all)) {
    PRUNEX_USAGE(std::find(seen.begin(), seen.end(), v) == seen.end(), dashed(o.name), " lists ", v,
                 " twice");
    seen.push_back(v);
  }
  return all;
}

// One option's storage while CLI11 parses into it (stable addresses: kept in a std::map).
struct Slot {
  bool flag = false;
  std::string text;
  long integer = 0;
  double real = 0;
  std::size_t size = 0;
  std::vector<std::string> list;  // a list option: one entry per time it is given
  CLI::Option* option = nullptr;
};

struct BoundCommand {
  const Command* command = nullptr;
  CLI::App* app = nullptr;
  std::map<std::string, Slot> slots;
  std::vector<std::string> positional;
};

// CLI11 reports a failed check as "NAME: MESSAGE"; our messages name the option already.
// `error` keeps the last one, so the UsageError is the check's own line.
CLI::Validator checked(const Option& o, std::string* error) {
  const std::string what = "option " + dashed(o.name);
  return CLI::Validator(
      [o, what, error](std::string& v) -> std::string {
        try {
          switch (o.kind) {
            case Kind::text:
              // A path given empty (--json '') is a mistake, not "no file".
              PRUNEX_USAGE(!v.empty() || (o.value_name.find("FILE") == std::string::npos &&
                                          o.value_name.find("DIR") == std::string::npos),
                           dashed(o.name), " needs a ", o.value_name, ", got an empty one");
              PRUNEX_USAGE(o.choices.empty() ||
                               std::find(o.choices.begin(), o.choices.end(), v) != o.choices.end(),
                           dashed(o.name), " must be one of ", joined(o.choices, ", "), ", got '",
                           v, "'");
              break;
            case Kind::integer: {
              const auto lo = static_cast<long>(std::max<double>(o.lo, -9.2e18));
              const auto hi = static_cast<long>(std::min<double>(o.hi, 9.2e18));
              parse_long(v, dashed(o.name), lo, hi);
              break;
            }
            case Kind::real: {
              const double x = parse_double(v, dashed(o.name));
              PRUNEX_USAGE((o.open_low ? x > o.lo : x >= o.lo) && x <= o.hi, dashed(o.name),
                           " must be in ", range_text(o.lo, o.hi, o.open_low), ", got '", v, "'");
              break;
            }
            case Kind::size: {
              const std::size_t bytes = parse_size(v, what);
              PRUNEX_USAGE(static_cast<double>(bytes) <= o.hi, dashed(o.name), " must be at most ",
                           static_cast<std::size_t>(o.hi), " bytes, got '", v, "'");
              v = std::to_string(bytes);
              break;
            }
          }
          if (o.check) o.check(v);
        } catch (const UsageError& e) {
          *error = e.what();
          return *error;
        }
        return std::string();
      },
      "", o.name);
}

// Option::value_name's rule for a comma-separated list.
bool takes_list(const Option& o) {
  return value_name_is_list(o.value_name);
}

void bind(BoundCommand& b, std::string* error) {
  for (const auto& o : b.command->options) {
    Slot& slot = b.slots[o.name];
    const std::string name = dashed(o.name);
    if (o.value_name.empty()) {
      slot.option = b.app->add_flag(name, slot.flag, o.help);
    } else {
      // CLI11 converts into the slot's variable of the option's type.
      const auto add = [&](auto& variable) { return b.app->add_option(name, variable, o.help); };
      slot.option = takes_list(o)             ? add(slot.list)
                    : o.kind == Kind::integer ? add(slot.integer)
                    : o.kind == Kind::real    ? add(slot.real)
                    : o.kind == Kind::size    ? add(slot.size)
                                              : add(slot.text);
      slot.option->type_name(o.value_name)->transform(checked(o, error));
    }
    // A list keeps every time it is given (one value each: "--gpus 8 16" is a stray 16);
    // any other option its last.
    if (takes_list(o))
      slot.option->expected(1)->allow_extra_args(false)->multi_option_policy(
          CLI::MultiOptionPolicy::TakeAll);
    else
      slot.option->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  }
  // CLI11 2.4 (Ubuntu 24.04) refuses option names with spaces or dots: the positional has a
  // plain name, and the command's text ("KIND INPUT...") only as its type name.
  if (!b.command->positional.empty())
    b.app->add_option("positional", b.positional)->type_name(b.command->positional);
}

}  // namespace

Option integer_option(std::string name, std::string value_name, std::string help,
                      std::string default_value, long lo, long hi) {
  Option o{std::move(name), std::move(value_name), std::move(help), std::move(default_value)};
  o.kind = Kind::integer;
  o.lo = static_cast<double>(lo);
  o.hi = static_cast<double>(hi);
  return o;
}

Option real_option(std::string name, std::string value_name, std::string help,
                   std::string default_value, double lo, double hi) {
  Option o{std::move(name), std::move(value_name), std::move(help), std::move(default_value)};
  o.kind = Kind::real;
  o.lo = lo;
  o.hi = hi;
  return o;
}

Option size_option(std::string name, std::string value_name, std::string help,
                   std::string default_value, double hi) {
  Option o{std::move(name), std::move(value_name), std::move(help), std::move(default_value)};
  o.kind = Kind::size;
  o.hi = hi;
  return o;
}

Option choice_option(std::string name, std::string value_name, std::string help,
                     std::string default_value, std::vector<std::string> choices) {
  Option o{std::move(name), std::move(value_name), std::move(help), std::move(default_value)};
  o.choices = std::move(choices);
  return o;
}

namespace {

// The word CLI11 left unclaimed that comes first (an option no one declares, a stray word),
// as a UsageError of one line.
void refuse_extras(const BoundCommand& b) {
  std::vector<std::string> extras = b.app->remaining();
  // CLI11 keeps a "--" it met before the positional words; it ends the options, nothing more.
  extras.erase(std::remove(extras.begin(), extras.end(), "--"), extras.end());
  if (extras.empty()) return;
  const std::string& w = extras.front();
  const bool option =
      w.size() > 1 && w[0] == '-' && !std::isdigit(static_cast<unsigned char>(w[1]));
  PRUNEX_USAGE(!option, "unknown option '", w.substr(0, w.find('=')), "' (see prunex ",
               b.command->name, " --help)");
  PRUNEX_USAGE(false, "argument not expected: ", w, " (see prunex ", b.command->name, " --help)");
}

// `command` as the one subcommand of `app` with its typed options, the words parsed
// (--name=value, -b64, lists given more than once: CLI11's own rules); its slots (which live in
// `app`) hold the values. `error` receives a failed check's message and must live as long as
// `app`.
std::unique_ptr<BoundCommand> parse_words(CLI::App& app, std::string& error, const Command& command,
                                          const std::vector<std::string>& argv) {
  app.set_help_flag();  // main.cc prints help_text() for --help
  app.require_subcommand(1, 1);
  auto b = std::make_unique<BoundCommand>();
  b->command = &command;
  b->app = app.add_subcommand(command.name, command.summary);
  b->app->set_help_flag();
  // Words no option claims stay with the command, which names the first (refuse_extras).
  b->app->allow_extras(true);
  // Values that look like negative numbers are values, not options.
  b->app->allow_windows_style_options(false);
  bind(*b, &error);
  std::vector<std::string> reversed(argv.rbegin(), argv.rend());  // CLI11 parses from the back
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    std::string msg = error.empty() ? e.what() : error;
    for (char& c : msg)
      if (c == '\n') c = ' ';
    throw UsageError(msg + " (see prunex " + command.name + " --help)");
  }
  refuse_extras(*b);
  return b;
}

}  // namespace

CommandLine parse_command_line(const std::vector<std::string>& all_argv) {
  PRUNEX_USAGE(!all_argv.empty(), "no command (try prunex --help)");
  std::vector<std::string> argv = all_argv;
  CommandLine out;
  for (const auto& c : registry())
    if (c.name == argv[0]) out.command = &c;
  PRUNEX_USAGE(out.command != nullptr, "unknown command '", argv[0], "' (try prunex --help)");
  if (out.command->trailing) {
    const auto dashes = std::find(argv.begin() + 1, argv.end(), "--");
    if (dashes != argv.end()) {
      out.args.trailing_.assign(dashes + 1, argv.end());
      argv.erase(dashes, argv.end());
    }
  }
  std::string error;  // the last check's message: the validators in app point here
  CLI::App app("prunex", "prunex");
  const auto b = parse_words(app, error, *out.command, argv);
  out.args.positional_ = b->positional;
  for (const auto& o : b->command->options) {
    const Slot& slot = b->slots.at(o.name);
    if (slot.option->count() == 0) continue;
    Args::Value v;
    v.kind = o.kind;
    v.text = o.value_name.empty() ? "1"
             : takes_list(o)      ? list_value(o, slot.list)
                                  : slot.option->as<std::string>();
    v.integer = slot.integer;
    v.real = slot.real;
    v.size = slot.size;
    out.args.values_[o.name] = v;
  }
  return out;
}

std::optional<std::string> Args::get(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) return std::nullopt;
  return it->second.text;
}

std::string Args::get_or(const std::string& name, const std::string& fallback) const {
  auto v = get(name);
  return v ? *v : fallback;
}

const Args::Value* Args::typed(const std::string& name, Kind kind) const {
  auto it = values_.find(name);
  if (it == values_.end()) return nullptr;
  PRUNEX_CHECK(it->second.kind == kind, "option ", dashed(name),
               " is read as a number but declared as another kind");
  return &it->second;
}

long Args::get_int(const std::string& name, long fallback, long lo, long hi) const {
  const Value* v = typed(name, Kind::integer);
  if (!v) return fallback;
  PRUNEX_USAGE(v->integer >= lo && v->integer <= hi, dashed(name), " must be in [", lo, ", ", hi,
               "], got '", v->text, "'");
  return v->integer;
}

double Args::get_double(const std::string& name, double fallback) const {
  const Value* v = typed(name, Kind::real);
  return v ? v->real : fallback;
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
  const Value* v = typed(name, Kind::size);
  return v ? v->size : fallback;
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
      const std::string range = bounds_text(o);
      if (!o.default_value.empty() || !range.empty())
        os << " (" << (o.default_value.empty() ? "" : "default " + o.default_value)
           << (!o.default_value.empty() && !range.empty() ? "; " : "") << range << ")";
      os << "\n";
    }
  }
  os << "  --help                    this text\n";
  return os.str();
}

}  // namespace prunex::cli
