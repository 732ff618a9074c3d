// Errors. UsageError is the user's fault (bad flag, bad file, impossible size): the command
// line prints its one-line message and exits with status 2. Anything else is a bug or a
// runtime failure (exit 1).
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>

namespace prunex {

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

namespace detail {
template <typename... Args>
std::string concat(const Args&... args) {
  std::ostringstream os;
  (os << ... << args);
  return os.str();
}
}  // namespace detail

}  // namespace prunex

// Internal invariant: throws std::logic_error naming the file, line, condition and message.
#define PRUNEX_CHECK(cond, ...)                                                                    \
  do {                                                                                             \
    if (!(cond))                                                                                   \
      throw std::logic_error(::prunex::detail::concat(__FILE__, ":", __LINE__, ": ",               \
                                                      "check failed: " #cond " ", ##__VA_ARGS__)); \
  } while (0)

// Two values must be equal; prints both.
#define PRUNEX_CHECK_EQ(a, b, ...)                                                                 \
  do {                                                                                             \
    const auto& prunex_a_ = (a);                                                                   \
    const auto& prunex_b_ = (b);                                                                   \
    if (!(prunex_a_ == prunex_b_))                                                                 \
      throw std::logic_error(::prunex::detail::concat(__FILE__, ":", __LINE__, ": " #a " (",       \
                                                      prunex_a_, ") != " #b " (", prunex_b_, ") ", \
                                                      ##__VA_ARGS__));                             \
  } while (0)

// User input is wrong: one line, exit 2.
#define PRUNEX_USAGE(cond, ...)                                                     \
  do {                                                                              \
    if (!(cond)) throw ::prunex::UsageError(::prunex::detail::concat(__VA_ARGS__)); \
  } while (0)
