// The structured projection of a whole model on the GPU: the same result as
// engine/projection.h's project_model (masks equal, weights equal bit for bit, up to ties
// between group norms that differ only in summation order). Group norms are computed on the
// device for all layers at once, per stage of the composition filter -> channel -> shape;
// only the norm vectors (a few KB) come to the host, where top_groups picks the kept groups
// with the CPU's tie-breaking. Three host round trips per model, however many layers.
#pragma once

#include <cuda_runtime_api.h>

#include "engine/layer_layout.h"
#include "engine/mask.h"
#include "engine/sparsity_spec.h"

namespace prunex {

// weights[l]: device pointer to layer l's tensor (host array, one entry per layout layer).
// Projects every pruned layer in place on stream s and returns the masks; returns after
// the stream has finished.
ModelMask project_model_gpu(float* const* weights, const ModelLayout& layout,
                            const SparsitySpec& spec, cudaStream_t s);

}  // namespace prunex
