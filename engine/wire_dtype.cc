#include "engine/wire_dtype.h"

#include "engine/error.h"

namespace prunex {

DType parse_wire_dtype(const std::string& name) {
  if (name == "fp32") return DType::f32;
  if (name == "bf16") return DType::bf16;
  if (name == "fp16") return DType::f16;
  throw UsageError("--wire-dtype must be fp32, bf16 or fp16, got '" + name + "'");
}

std::string wire_dtype_name(DType t) {
  return t == DType::bf16 ? "bf16" : t == DType::f16 ? "fp16" : "fp32";
}

}  // namespace prunex
