// AVX-512 kernels for pack/unpack of one layer whose compact slice lies in one bucket. The
// layer is walked flat, 16 floats at a time, with its element mask as bits: unpack is an
// expand of the compact floats into the full tensor (a table-driven permute), pack a compress
// (vcompressps) of z + v. Chosen at run time; the portable row code handles the rest.
#pragma once

#include <cstdint>

#include "engine/compaction.h"

namespace prunex::detail {

// True when the CPU has AVX-512F and the kernels have not been switched off.
bool compaction_simd_enabled();
// Turns the kernels on or off (tests run both paths); returns the previous setting. Asking
// for them on a CPU without AVX-512F leaves them off.
bool set_compaction_simd(bool on);

// d <- compress(z + v) over c.flat_bits (v may be null); d has room for c.compact_numel
// floats and `slack` more that may be scribbled on (they are written later by pack).
void pack_layer_simd(const CompactLayer& c, const float* z, const float* v, float* d,
                     int64_t slack);
// The same into a bucket that starts on a 64-byte boundary, one store per whole line.
void pack_layer_simd_lines(const CompactLayer& c, const float* z, const float* v, float* d);
// out <- scale * expand(s) over c.flat_bits, zeros elsewhere.
void unpack_layer_simd(const CompactLayer& c, const float* s, float* out, float scale);

}  // namespace prunex::detail
