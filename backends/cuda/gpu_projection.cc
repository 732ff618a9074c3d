#include "backends/cuda/gpu_projection.h"

#include <algorithm>
#include <functional>

#include "backends/cuda/cuda_handles.h"
#include "backends/cuda/group_norms.h"
#include "engine/error.h"
#include "engine/projection.h"

namespace prunex {

namespace {

// The pruned layers' mask vectors, laid end to end in one device buffer.
struct DeviceMasks {
  std::vector<size_t> out_at, in_at, shape_at;
  DeviceArray<uint8_t> bytes;

  DeviceMasks(const ModelMask& mask, const std::vector<size_t>& layers, cudaStream_t s)
      : out_at(mask.size()), in_at(mask.size()), shape_at(mask.size()) {
    std::vector<uint8_t> host;
    auto put = [&](const std::vector<uint8_t>& v) {
      const size_t at = host.size();
      host.insert(host.end(), v.begin(), v.end());
      return at;
    };
    for (size_t l : layers) {
      out_at[l] = put(mask[l].keep_out);
      in_at[l] = put(mask[l].keep_in);
      shape_at[l] = put(mask[l].keep_shape);
    }
    bytes = DeviceArray<uint8_t>(host.size());
    if (!host.empty())
      PRUNEX_CUDA_CHECK(
          cudaMemcpyAsync(bytes.data(), host.data(), host.size(), cudaMemcpyHostToDevice, s));
    PRUNEX_CUDA_CHECK(cudaStreamSynchronize(s));  // `host` dies here
  }
  const uint8_t* keep_out(size_t l) const { return bytes.data() + out_at[l]; }
  const uint8_t* keep_in(size_t l) const { return bytes.data() + in_at[l]; }
  const uint8_t* keep_shape(size_t l) const { return bytes.data() + shape_at[l]; }
};

// One stage of the composition for every layer in `layers`: norms on the device (launch
// writes `groups(l)` doubles at the given offset), one download, top_groups on the host.
void run_stage(const std::vector<size_t>& layers, const std::function<int64_t(size_t)>& groups,
               const std::function<void(size_t, double*)>& launch,
               const std::function<void(size_t, const std::vector<double>&)>& select,
               cudaStream_t s) {
  if (layers.empty()) return;
  std::vector<int64_t> at;
  int64_t total = 0;
  for (size_t l : layers) {
    at.push_back(total);
    total += groups(l);
  }
  DeviceArray<double> norms(total);
  for (size_t i = 0; i < layers.size(); ++i) launch(layers[i], norms.data() + at[i]);
  std::vector<double> host(total);
  PRUNEX_CUDA_CHECK(cudaMemcpyAsync(host.data(), norms.data(), total * sizeof(double),
                                    cudaMemcpyDeviceToHost, s));
  PRUNEX_CUDA_CHECK(cudaStreamSynchronize(s));
  for (size_t i = 0; i < layers.size(); ++i)
    select(layers[i],
           std::vector<double>(host.begin() + at[i], host.begin() + at[i] + groups(layers[i])));
}

std::vector<uint8_t> kept_set(const std::vector<double>& norms, int64_t keep) {
  std::vector<uint8_t> kept(norms.size(), 0);
  for (int64_t g : top_groups(norms, keep)) kept[g] = 1;
  return kept;
}

}  // namespace

ModelMask project_model_gpu(float* const* weights, const ModelLayout& layout,
                            const SparsitySpec& spec, cudaStream_t s) {
  PRUNEX_CHECK_EQ(layout.layers.size(), spec.layers.size());
  ModelMask mask(layout, spec);
  std::vector<LayerDims> dims;
  std::vector<size_t> pruned, with_filter, with_channel, with_shape;
  for (size_t l = 0; l < layout.layers.size(); ++l) {
    dims.push_back(layer_dims(layout.layers[l]));
    const LayerSparsity& ls = spec.layers[l];
    if (!ls.pruned()) continue;
    pruned.push_back(l);
    if (ls.kinds & kFilter) with_filter.push_back(l);
    if (ls.kinds & kChannel) with_channel.push_back(l);
    if (ls.kinds & kShape) with_shape.push_back(l);
  }
  auto keep_of = [&](size_t l, int64_t groups) { return spec.layers[l].keep.kept(groups); };

  run_stage(
      with_filter, [&](size_t l) { return dims[l].out; },
      [&](size_t l, double* n) { filter_norms_gpu(weights[l], dims[l], n, s); },
      [&](size_t l, const std::vector<double>& n) {
        const auto kept = kept_set(n, keep_of(l, dims[l].out));
        for (int64_t o = 0; o < dims[l].out; ++o)
          if (!kept[o]) mask[l].keep_out[o] = 0;
      },
      s);
  {
    const DeviceMasks dm(mask, with_channel, s);
    DeviceArray<double> scratch(0);
    int64_t most = 0;
    for (size_t l : with_channel) most = std::max(most, dims[l].in * dims[l].k);
    scratch = DeviceArray<double>(most);
    run_stage(
        with_channel, [&](size_t l) { return dims[l].in; },
        [&](size_t l, double* n) {
          // The scratch is reused layer after layer: launches on one stream run in order.
          channel_norms_gpu(weights[l], dims[l], dm.keep_out(l), scratch.data(), n, s);
        },
        [&](size_t l, const std::vector<double>& n) {
          const auto kept = kept_set(n, keep_of(l, dims[l].in));
          for (int64_t c = 0; c < dims[l].in; ++c)
            if (!kept[c]) mask[l].keep_in[c] = 0;
        },
        s);
  }
  {
    const DeviceMasks dm(mask, with_shape, s);
    run_stage(
        with_shape, [&](size_t l) { return dims[l].in * dims[l].k; },
        [&](size_t l, double* n) {
          shape_norms_gpu(weights[l], dims[l], dm.keep_out(l), dm.keep_in(l), n, s);
        },
        [&](size_t l, const std::vector<double>& n) {
          const auto kept = kept_set(n, keep_of(l, dims[l].in * dims[l].k));
          for (int64_t j = 0; j < dims[l].in * dims[l].k; ++j)
            if (!kept[j]) mask[l].keep_shape[j] = 0;
          mask[l].normalise();
        },
        s);
  }
  const DeviceMasks dm(mask, pruned, s);
  for (size_t l : pruned)
    apply_group_mask_gpu(weights[l], dims[l], dm.keep_out(l), dm.keep_in(l), dm.keep_shape(l), s);
  PRUNEX_CUDA_CHECK(cudaStreamSynchronize(s));
  return mask;
}

}  // namespace prunex
