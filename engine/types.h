// Basic vocabulary shared by the engine and every backend: element types, reduction
// operators, collective operations and the process groups of the hierarchy. Each enum
// has one name table (its *_name function) and one parser (parse_*), used at every text
// boundary (command line, JSON records, calibration files); inside the program the enums
// travel, not strings.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace prunex {

// bf16 and f16: 16-bit floats on the wire (engine/wire_dtype.h), summed in their own type.
// i8: signed bytes (PacTrain's ternary levels, summed).
enum class DType { f32, f64, i32, i64, u8, bf16, f16, i8 };

constexpr std::size_t dtype_size(DType t) {
  switch (t) {
    case DType::f32:
      return 4;
    case DType::f64:
      return 8;
    case DType::i32:
      return 4;
    case DType::i64:
      return 8;
    case DType::u8:
    case DType::i8:
      return 1;
    case DType::bf16:
    case DType::f16:
      return 2;
  }
  return 0;
}

constexpr std::string_view dtype_name(DType t) {
  switch (t) {
    case DType::f32:
      return "float";
    case DType::f64:
      return "double";
    case DType::i32:
      return "int32";
    case DType::i64:
      return "int64";
    case DType::u8:
      return "uint8";
    case DType::bf16:
      return "bfloat16";
    case DType::f16:
      return "half";
    case DType::i8:
      return "int8";
  }
  return "?";
}

// bor is a bitwise OR over bytes (DType::u8 only); avg divides the sum by the group size.
enum class ReduceOp { sum, avg, max, bor };

constexpr std::string_view reduce_op_name(ReduceOp op) {
  switch (op) {
    case ReduceOp::sum:
      return "sum";
    case ReduceOp::avg:
      return "avg";
    case ReduceOp::max:
      return "max";
    case ReduceOp::bor:
      return "bor";
  }
  return "?";
}

// world: every rank. intra: the ranks of one node. inter: the node leaders (local rank 0),
// one per node; only leaders are members. rail: local rank r of every node, one group per
// local rank (hsadmm-rail's inter-node all-reduces; rank r's traffic leaves through its NIC).
enum class Group { world, intra, inter, rail };

constexpr std::string_view group_name(Group g) {
  switch (g) {
    case Group::world:
      return "world";
    case Group::intra:
      return "intra";
    case Group::inter:
      return "inter";
    case Group::rail:
      return "rail";
  }
  return "?";
}

// The collectives a Communicator offers and a plan may contain. barrier carries no data; it
// appears in call records (measurement fences), never in a plan. send and recv are the
// point-to-point messages (CGX's reductions): records only; a plan states their pattern as
// alltoall (every member sends `bytes` to every other member at once, CGX's scatter-reduce-
// allgather) or as the ring collective whose edges carry the same blocks.
enum class CollectiveOp { allreduce, broadcast, allgather, barrier, alltoall, send, recv };

constexpr std::string_view collective_op_name(CollectiveOp op) {
  switch (op) {
    case CollectiveOp::allreduce:
      return "allreduce";
    case CollectiveOp::broadcast:
      return "broadcast";
    case CollectiveOp::allgather:
      return "allgather";
    case CollectiveOp::barrier:
      return "barrier";
    case CollectiveOp::alltoall:
      return "alltoall";
    case CollectiveOp::send:
      return "send";
    case CollectiveOp::recv:
      return "recv";
  }
  return "?";
}

// Parsers: UsageError naming `text` and the valid names.
Group parse_group(std::string_view text);
CollectiveOp parse_collective_op(std::string_view text);

}  // namespace prunex
