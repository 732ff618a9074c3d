// A small command-line layer: each subcommand declares its options once; the parser,
// `--help` text and unknown-option errors come from that declaration.
#pragma once

#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace prunex::cli {

struct Option {
  std::string name;        // long name without dashes, e.g. "topology"; short: "b"
  std::string value_name;  // empty for boolean flags
  std::string help;
  std::string default_value;  // shown in --help; empty = none
};

struct Command;

// The parsed command line of one subcommand. Parsing is CLI11's: an option the command does
// not declare, a missing value, or a word where the command takes no positional arguments is
// a UsageError of one line; an option given twice keeps the last value.
class Args {
 public:
  Args(const Command& command, const std::vector<std::string>& argv);

  bool has(const std::string& name) const { return values_.count(name) > 0; }
  bool flag(const std::string& name) const { return has(name); }
  std::optional<std::string> get(const std::string& name) const;
  std::string get_or(const std::string& name, const std::string& fallback) const;
  // Numbers: a malformed value, or one outside [lo, hi], is a UsageError naming the option
  // and showing the value as typed.
  long get_int(const std::string& name, long fallback, long lo = std::numeric_limits<long>::min(),
               long hi = std::numeric_limits<long>::max()) const;
  double get_double(const std::string& name, double fallback) const;
  // Size with optional K/M/G suffix (powers of 1024), for -b/-e.
  std::size_t get_size(const std::string& name, std::size_t fallback) const;
  const std::vector<std::string>& positional() const { return positional_; }
  // The words after the first "--" of a command that runs another (Command::trailing), as
  // given: they are not parsed here.
  const std::vector<std::string>& trailing() const { return trailing_; }

 private:
  std::map<std::string, std::string> values_;
  std::vector<std::string> positional_;
  std::vector<std::string> trailing_;
};

// Splits "a,b,c".
std::vector<std::string> split_list(const std::string& s);
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
};

// Commands register themselves (see PRUNEX_REGISTER_COMMAND) from their own files.
std::vector<Command>& registry();
std::string help_text(const Command& c);

struct Registrar {
  explicit Registrar(Command c) { registry().push_back(std::move(c)); }
};

}  // namespace prunex::cli

#define PRUNEX_CLI_CONCAT2(a, b) a##b
#define PRUNEX_CLI_CONCAT(a, b) PRUNEX_CLI_CONCAT2(a, b)
#define PRUNEX_REGISTER_COMMAND(...) \
  static ::prunex::cli::Registrar PRUNEX_CLI_CONCAT(prunex_cmd_, __LINE__)(__VA_ARGS__)
