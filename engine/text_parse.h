// Strict parsing of numbers typed by a person (command-line options, config values): the
// whole text must be one number within the stated range, else a UsageError of one line that
// names `what` and shows the text as typed. Shared by the command line and the train config.
#pragma once

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "engine/error.h"

namespace prunex {

inline long parse_long(const std::string& text, const std::string& what,
                       long lo = std::numeric_limits<long>::min(),
                       long hi = std::numeric_limits<long>::max()) {
  errno = 0;
  char* end = nullptr;
  const long x = std::strtol(text.c_str(), &end, 10);
  PRUNEX_USAGE(!text.empty() && *end == '\0', what, " expects an integer, got '", text, "'");
  PRUNEX_USAGE(errno != ERANGE && x >= lo && x <= hi, what, " must be in [", lo, ", ", hi,
               "], got '", text, "'");
  return x;
}

inline int parse_int(const std::string& text, const std::string& what,
                     int lo = std::numeric_limits<int>::min(),
                     int hi = std::numeric_limits<int>::max()) {
  return static_cast<int>(parse_long(text, what, lo, hi));
}

inline double parse_double(const std::string& text, const std::string& what) {
  errno = 0;
  char* end = nullptr;
  const double x = std::strtod(text.c_str(), &end);
  PRUNEX_USAGE(!text.empty() && *end == '\0', what, " expects a number, got '", text, "'");
  PRUNEX_USAGE(errno != ERANGE && std::isfinite(x), what, " is out of range, got '", text, "'");
  return x;
}

// Splits "a,b,c" at its commas; empty items are dropped.
inline std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::string item;
  for (char c : s + ",")
    if (c != ',') {
      item += c;
    } else if (!item.empty()) {
      out.push_back(item);
      item.clear();
    }
  return out;
}

}  // namespace prunex
