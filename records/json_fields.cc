#include "records/json_fields.h"

#include <cmath>
#include <limits>

#include "engine/error.h"

namespace prunex {

std::string topology_error_prefix(const std::string& origin) {
  return "topology " + origin + ": ";
}

JsonFields::JsonFields(const nlohmann::json& obj, std::string origin, std::string path,
                       std::map<std::string, std::string>* sources, std::string kind)
    : obj_(obj),
      origin_(std::move(origin)),
      path_(std::move(path)),
      sources_(sources),
      kind_(std::move(kind)) {
  if (!obj_.is_object()) {
    throw UsageError(kind_ + " " + origin_ + ": " +
                     (path_.empty() ? std::string("the document") : path_) +
                     " must be a JSON object");
  }
}

void JsonFields::fail(const std::string& key, const std::string& message) const {
  throw UsageError(kind_ + " " + origin_ + ": " + field(key) + " " + message);
}

const nlohmann::json& JsonFields::lookup(const std::string& key) {
  read_.insert(key);
  auto it = obj_.find(key);
  if (it == obj_.end()) fail(key, "is missing");
  return *it;
}

std::optional<double> JsonFields::optional_number(const std::string& key, double scale) {
  if (!has(key)) {
    read_.insert(key);
    return std::nullopt;
  }
  return number(key, scale);
}

double JsonFields::number(const std::string& key, double scale) {
  const nlohmann::json& v = lookup(key);
  if (v.is_number()) return v.get<double>() * scale;
  if (!v.is_object()) fail(key, "must be a number or {\"value\": number, \"source\": text}");
  JsonFields inner(v, origin_, field(key), nullptr, kind_);
  const nlohmann::json& value = inner.lookup("value");
  if (!value.is_number()) inner.fail("value", "must be a number");
  if (auto source = inner.optional_string("source"); source && sources_)
    (*sources_)[field(key)] = *source;
  inner.finish();
  return value.get<double>() * scale;
}

std::vector<std::vector<int>> JsonFields::optional_int_rows(const std::string& key) {
  if (!has(key)) {
    read_.insert(key);
    return {};
  }
  const nlohmann::json* v = &lookup(key);
  if (v->is_object()) {
    JsonFields inner(*v, origin_, field(key), nullptr, kind_);
    v = &inner.lookup("value");
    if (auto source = inner.optional_string("source"); source && sources_)
      (*sources_)[field(key)] = *source;
    inner.finish();
  }
  if (!v->is_array()) fail(key, "must be an array of arrays of whole numbers");
  std::vector<std::vector<int>> rows;
  for (std::size_t i = 0; i < v->size(); ++i) {
    const nlohmann::json& row = (*v)[i];
    if (!row.is_array()) fail(key, "row " + std::to_string(i) + " must be an array");
    rows.emplace_back();
    for (const auto& x : row) {
      if (!x.is_number_integer() || x.get<long long>() < 0 ||
          x.get<long long>() > std::numeric_limits<int>::max())
        fail(key, "row " + std::to_string(i) + ": " + x.dump() + " is not a whole number >= 0");
      rows.back().push_back(x.get<int>());
    }
  }
  return rows;
}

int JsonFields::integer(const std::string& key) {
  double x = number(key);
  if (x != std::floor(x))
    fail(key, "must be a whole number (got " + nlohmann::json(x).dump() + ")");
  if (std::fabs(x) > std::numeric_limits<int>::max()) {
    // (a whole number beyond long long prints as a double: converting it would be undefined)
    const std::string got =
        std::fabs(x) < 9e18 ? std::to_string(static_cast<long long>(x)) : nlohmann::json(x).dump();
    fail(key, "must be at most " + std::to_string(std::numeric_limits<int>::max()) + " (got " +
                  got + ")");
  }
  return static_cast<int>(x);
}

std::optional<int> JsonFields::optional_integer(const std::string& key) {
  if (!has(key)) {
    read_.insert(key);
    return std::nullopt;
  }
  return integer(key);
}

std::string JsonFields::string(const std::string& key) {
  const nlohmann::json& v = lookup(key);
  if (!v.is_string()) fail(key, "must be a string");
  return v.get<std::string>();
}

std::optional<std::string> JsonFields::optional_string(const std::string& key) {
  if (!has(key)) {
    read_.insert(key);
    return std::nullopt;
  }
  return string(key);
}

JsonFields JsonFields::object(const std::string& key) {
  const nlohmann::json& v = lookup(key);
  if (!v.is_object()) fail(key, "must be a JSON object");
  return JsonFields(v, origin_, field(key), sources_, kind_);
}

const nlohmann::json* JsonFields::optional_value(const std::string& key) {
  read_.insert(key);
  const auto it = obj_.find(key);
  return it == obj_.end() ? nullptr : &*it;
}

void JsonFields::finish() const {
  for (auto it = obj_.begin(); it != obj_.end(); ++it) {
    if (read_.count(it.key())) continue;
    std::string accepted;
    for (const auto& k : read_) accepted += (accepted.empty() ? "" : ", ") + k;
    fail(it.key(), "is an unknown key (accepted here: " + accepted + ")");
  }
}

}  // namespace prunex
