// Named binary sections: what a component saves into a checkpoint and restores from it
// (records/checkpoint.h writes them to a file with a checksum). Values are stored as their
// bytes, so a restored run continues bit for bit. A missing section or one of the wrong size
// is a UsageError naming it: the checkpoint does not belong to this run.
#pragma once

#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <type_traits>
#include <vector>

#include "engine/error.h"

namespace prunex {

using StateSections = std::map<std::string, std::string>;

template <typename T>
void put_state(StateSections& s, const std::string& name, const std::vector<T>& v) {
  static_assert(std::is_trivially_copyable_v<T>);
  s[name].assign(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}

template <typename T>
void put_state_value(StateSections& s, const std::string& name, const T& value) {
  static_assert(std::is_trivially_copyable_v<T>);
  s[name].assign(reinterpret_cast<const char*>(&value), sizeof(T));
}

inline const std::string& state_bytes(const StateSections& s, const std::string& name) {
  const auto it = s.find(name);
  PRUNEX_USAGE(it != s.end(), "checkpoint has no section '", name, "'");
  return it->second;
}

// The section as a vector of `count` values (count < 0: whatever its size holds).
template <typename T>
std::vector<T> get_state(const StateSections& s, const std::string& name, int64_t count = -1) {
  static_assert(std::is_trivially_copyable_v<T>);
  const std::string& b = state_bytes(s, name);
  PRUNEX_USAGE(b.size() % sizeof(T) == 0 &&
                   (count < 0 || b.size() == static_cast<size_t>(count) * sizeof(T)),
               "checkpoint section '", name, "' holds ", b.size(), " bytes, expected ",
               count < 0 ? std::string("a multiple of ") + std::to_string(sizeof(T))
                         : std::to_string(count * static_cast<int64_t>(sizeof(T))));
  std::vector<T> v(b.size() / sizeof(T));
  if (!b.empty()) std::memcpy(v.data(), b.data(), b.size());
  return v;
}

template <typename T>
T get_state_value(const StateSections& s, const std::string& name) {
  return get_state<T>(s, name, 1)[0];
}

}  // namespace prunex
