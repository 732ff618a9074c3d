#include "engine/types.h"

#include <initializer_list>
#include <string>

#include "engine/error.h"

namespace prunex {
namespace {

// The parser of every enum here: the value whose name is `text`, else a UsageError listing
// the names (from the same name function, so the list cannot drift).
template <typename E, typename NameFn>
E parse_by_name(std::string_view text, const char* what, std::initializer_list<E> values,
                NameFn name) {
  std::string valid;
  for (E v : values) {
    if (name(v) == text) return v;
    valid += (valid.empty() ? "" : ", ") + std::string(name(v));
  }
  throw UsageError(detail::concat("unknown ", what, " '", text, "' (expected ", valid, ")"));
}

}  // namespace

Group parse_group(std::string_view text) {
  return parse_by_name(text, "group", {Group::world, Group::intra, Group::inter}, group_name);
}

CollectiveOp parse_collective_op(std::string_view text) {
  return parse_by_name(
      text, "collective",
      {CollectiveOp::allreduce, CollectiveOp::broadcast, CollectiveOp::allgather,
       CollectiveOp::barrier, CollectiveOp::alltoall, CollectiveOp::send, CollectiveOp::recv},
      collective_op_name);
}

}  // namespace prunex
