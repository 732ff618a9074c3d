// A small command-line layer: each subcommand declares its options once; the parser,
// `--help` text and unknown-option errors come from that declaration.
#pragma once

#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/text_parse.h"

namespace prunex::cli {

// How an option's value is read. CLI11 converts and checks it while parsing the command line,
// before the command runs: text as typed; integer and real as numbers in [lo, hi]; size as
// bytes with an optional K/M/G suffix (powers of 1024). An option without a value name is a
// flag. A value that does not read is a UsageError of one line naming the option.
enum class Kind { text, integer, real, size };

struct Option {
  std::string name;  // long name without dashes, e.g. "topology"; short: "b"
  // Empty for boolean flags. LIST, FILES, IDS or a name ending in ",...": a comma-separated
  // list, whose values join when the option is given more than once (--set a=1 --set b=2 is
  // --set a=1,b=2), each value at most once; any other option given twice keeps its last
  // value (a script's defaults, then the caller's).
  std::string value_name;
  std::string help;
  std::string default_value;  // shown in --help; empty = none
  Kind kind = Kind::text;
  double lo = -std::numeric_limits<double>::infinity();
  double hi = std::numeric_limits<double>::infinity();
  bool open_low = false;  // real: (lo, hi]
  // Text: the values it takes (empty: any), checked while parsing.
  std::vector<std::string> choices = {};
  // A further check of the value as typed (a field table's own parser), run while parsing;
  // throws UsageError.
  std::function<void(const std::string&)> check = {};
};

// Typed options, for the declarations.
Option integer_option(std::string name, std::string value_name, std::string help,
                      std::string default_value, long lo, long hi);
Option real_option(std::string name, std::string value_name, std::string help,
                   std::string default_value, double lo, double hi);
Option size_option(std::string name, std::string value_name, std::string help,
                   std::string default_value, double hi = std::numeric_limits<double>::infinity());
// A text option that takes one of `choices`.
Option choice_option(std::string name, std::string value_name, std::string help,
                     std::string default_value, std::vector<std::string> choices);

struct Command;

struct CommandLine;

// The parsed command line of one subcommand (parse_command_line): each given option's value,
// typed as the command declared it. An option given twice keeps the last value (a list option:
// all of them, joined, each value once).
class Args {
 public:
  bool has(const std::string& name) const { return values_.count(name) > 0; }
  bool flag(const std::string& name) const { return has(name); }
  // The value as typed (a size: its bytes).
  std::optional<std::string> get(const std::string& name) const;
  std::string get_or(const std::string& name, const std::string& fallback) const;
  // An integer option's value; [lo, hi]: bounds known only where it is read (another option's
  // value, a topology's size), a UsageError naming the option when outside.
  long get_int(const std::string& name, long fallback, long lo = std::numeric_limits<long>::min(),
               long hi = std::numeric_limits<long>::max()) const;
  // A real option's value.
  double get_double(const std::string& name, double fallback) const;
  // A size option's value in bytes.
  std::size_t get_size(const std::string& name, std::size_t fallback) const;
  const std::vector<std::string>& positional() const { return positional_; }
  // The words after the first "--" of a command that runs another (Command::trailing), as
  // given: they are not parsed here.
  const std::vector<std::string>& trailing() const { return trailing_; }

  struct Value {
    Kind kind = Kind::text;
    std::string text;
    long integer = 0;
    double real = 0;
    std::size_t size = 0;
  };

 private:
  friend CommandLine parse_command_line(const std::vector<std::string>& argv);
  const Value* typed(const std::string& name, Kind kind) const;
  std::map<std::string, Value> values_;
  std::vector<std::string> positional_;
  std::vector<std::string> trailing_;
};

using prunex::split_list;  // engine/text_parse.h
// Parses a size like 64K, 1M, 1G, 1024.
std::size_t parse_size(const std::string& text, const std::string& what);

struct Command {
  std::string name;
  std::string summary;  // one line for `prunex --help`
  std::string usage;    // e.g. "prunex model-info --model M [--classes C]"
  std::string description;
  std::vector<Option> options;
  std::function<int(const Args&)> run;
  // Name of the positional arguments in --help (e.g. "KIND INPUT..."); empty: the command
  // takes none, and a stray word is an error.
  std::string positional = "";
  // The command runs another command line given after "--" (Args::trailing).
  bool trailing = false;
  // What the options alone decide, checked without side effects (UsageError): the command
  // runs it before its work, and so does a command that runs it (emulate, before it builds
  // anything). Empty: the parse's checks are all.
  std::function<void(const Args&)> check = {};
};

// Commands register themselves (see PRUNEX_REGISTER_COMMAND) from their own files.
std::vector<Command>& registry();

// The command line without the program name: the first word names the command, a CLI11
// subcommand of `prunex` with the command's typed options; the rest are its options. A word
// no command declares, a missing or malformed value, or a stray word is a UsageError of one
// line.
struct CommandLine {
  const Command* command = nullptr;
  Args args;
};
CommandLine parse_command_line(const std::vector<std::string>& argv);
// The words main() was given after the program name, as given (a command that hands its line
// to another executable: train).
void set_command_words(std::vector<std::string> words);
const std::vector<std::string>& command_words();
std::string help_text(const Command& c);

struct Registrar {
  explicit Registrar(Command c) { registry().push_back(std::move(c)); }
};

}  // namespace prunex::cli

#define PRUNEX_CLI_CONCAT2(a, b) a##b
#define PRUNEX_CLI_CONCAT(a, b) PRUNEX_CLI_CONCAT2(a, b)
#define PRUNEX_REGISTER_COMMAND(...) \
  static ::prunex::cli::Registrar PRUNEX_CLI_CONCAT(prunex_cmd_, __LINE__)(__VA_ARGS__)
