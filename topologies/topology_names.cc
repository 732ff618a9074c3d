#include "topologies/topology_names.h"

#include <utility>

#include "engine/error.h"

namespace prunex {
namespace {

constexpr std::pair<IntraKind, const char*> kIntra[] = {
    {IntraKind::nvlink_pairs, "nvlink_pairs"},
    {IntraKind::nvswitch, "nvswitch"},
    {IntraKind::pcie, "pcie"},
    {IntraKind::loopback, "loopback"},
};
constexpr std::pair<Precision, const char*> kPrecision[] = {
    {Precision::fp32, "fp32"},
    {Precision::tf32, "tf32"},
    {Precision::amp, "amp"},
};
constexpr std::pair<FabricKind, const char*> kFabric[] = {
    {FabricKind::fat_tree, "fat_tree"},
    {FabricKind::star, "star"},
    {FabricKind::dragonfly, "dragonfly"},
};

template <typename Table, typename Kind>
std::string name_of(const Table& table, Kind k) {
  for (const auto& [kind, name] : table)
    if (kind == k) return name;
  return "?";
}

template <typename Table, typename Kind>
bool kind_of(const Table& table, const std::string& name, Kind* out) {
  for (const auto& [kind, n] : table) {
    if (name == n) {
      *out = kind;
      return true;
    }
  }
  return false;
}

template <typename Table>
std::string all_names(const Table& table) {
  std::string s;
  for (const auto& entry : table) s += (s.empty() ? "" : ", ") + std::string(entry.second);
  return s;
}

}  // namespace

std::string intra_kind_name(IntraKind k) {
  return name_of(kIntra, k);
}
std::string fabric_kind_name(FabricKind k) {
  return name_of(kFabric, k);
}
bool intra_kind_from_name(const std::string& name, IntraKind* out) {
  return kind_of(kIntra, name, out);
}
bool fabric_kind_from_name(const std::string& name, FabricKind* out) {
  return kind_of(kFabric, name, out);
}
std::string intra_kind_names() {
  return all_names(kIntra);
}
std::string fabric_kind_names() {
  return all_names(kFabric);
}

Precision parse_precision(const std::string& name) {
  Precision p = Precision::fp32;
  if (!kind_of(kPrecision, name, &p))
    throw UsageError("unknown precision '" + name + "' (" + all_names(kPrecision) + ")");
  return p;
}
std::string precision_name(Precision p) {
  return name_of(kPrecision, p);
}

}  // namespace prunex
