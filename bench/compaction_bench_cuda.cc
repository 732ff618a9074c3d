// `prunex bench --op compaction --device cuda`: the GPU kernels of a live H-SADMM iteration
// over a model's real layer shapes. Rows: the fused multi-layer pack, unpack, pack+unpack, and a
// device-to-device cudaMemcpyAsync moving the same number of bytes (the target is pack+unpack
// at >= 80% of that copy's throughput), and the whole-model structured projection. Every row
// is checked against the CPU implementation in engine/ (#wrong: elements that differ in any
// bit). Exits 2 with "no CUDA device" on a machine without a GPU.
//
// Bytes counted as in `--op compaction`: pack reads z and v slices and writes the compact
// stream (3C), unpack reads it and writes the full tensors (C + D); the copy moves
// (4C + D) / 2 bytes, read once and written once. Times are medians over -n iterations,
// measured with CUDA events (projection: host clock, since it includes host top-k).
#if defined(PRUNEX_HAVE_NCCL)

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstring>
#include <nlohmann/json.hpp>

#include "backends/cuda/cuda_handles.h"
#include "backends/cuda/gpu_compaction.h"
#include "backends/cuda/gpu_projection.h"
#include "bench/model_bench.h"
#include "engine/compaction.h"
#include "engine/error.h"
#include "engine/projection.h"
#include "records/bench_rows.h"
#include "records/run_record.h"
#include "workloads/layers/model_zoo.h"

namespace prunex {

namespace {

long count_bit_diffs(const float* a, const float* b, int64_t n) {
  long wrong = 0;
  for (int64_t i = 0; i < n; ++i) wrong += std::memcmp(a + i, b + i, sizeof(float)) != 0;
  return wrong;
}

BenchRow cuda_row(const std::string& op, double bytes, double us, long wrong) {
  return memory_bench_row(op, "cuda", bytes, us, wrong);
}

// The model's tensors on the host and the device.
struct Model {
  std::vector<std::vector<float>> host;
  std::vector<DeviceArray<float>> dev;
  std::vector<float*> ptrs() {
    std::vector<float*> p;
    for (auto& d : dev) p.push_back(d.data());
    return p;
  }
};

Model make_model(const ModelLayout& layout, uint64_t seed, bool fill) {
  Model m;
  for (size_t l = 0; l < layout.layers.size(); ++l) {
    m.host.emplace_back(layout.layers[l].numel(), 0.0f);
    if (fill) fill_random(m.host.back(), seed + 2 * l);
    m.dev.emplace_back(m.host.back());
  }
  return m;
}

}  // namespace

int run_compaction_cuda_bench(const ModelBenchConfig& cfg) {
  if (cuda_device_count() == 0)
    throw UsageError("no CUDA device: " + cuda_unavailable_reason() +
                     " (prunex bench --op compaction --device cuda needs a GPU)");
  const ModelLayout& layout = cfg.layout;
  const SparsitySpec& spec = cfg.spec;
  const long iters = cfg.iters, warmup = cfg.warmup;
  const size_t n_layers = layout.layers.size();

  CudaStream stream;
  cudaStream_t s = stream.get();
  Model z0 = make_model(layout, 1, true), z = make_model(layout, 1, true);
  Model v = make_model(layout, 2, true), out = make_model(layout, 0, false);

  // Projection: GPU (timed) against the CPU on the same weights.
  std::vector<double> t_proj;
  ModelMask mask;
  for (long it = 0; it < warmup + iters; ++it) {
    for (size_t l = 0; l < n_layers; ++l)
      PRUNEX_CUDA_CHECK(cudaMemcpyAsync(z.dev[l].data(), z0.dev[l].data(), z0.dev[l].bytes(),
                                        cudaMemcpyDeviceToDevice, s));
    stream.synchronize();
    const auto t0 = std::chrono::steady_clock::now();
    auto zp = z.ptrs();
    mask = project_model_gpu(zp.data(), layout, spec, s);
    const double us =
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
    if (it >= warmup) t_proj.push_back(us);
  }
  std::vector<float*> zh;
  for (auto& h : z.host) zh.push_back(h.data());
  const ModelMask cpu_mask = project_model(zh.data(), layout, spec);
  long proj_wrong = mask == cpu_mask ? 0 : 1;
  for (size_t l = 0; l < n_layers; ++l) {
    const auto back = z.dev[l].download();
    proj_wrong += count_bit_diffs(back.data(), z.host[l].data(), layout.layers[l].numel());
  }

  // Pack / unpack of the projected z plus v, against a device-to-device copy.
  const CompactionPlan plan(layout, cpu_mask);
  GpuCompaction gc(plan);
  DeviceArray<float> buckets(gc.stream_floats());
  const double c_bytes = double(plan.compact_bytes()), d_bytes = double(plan.dense_bytes());
  const double pack_bytes = 3 * c_bytes, unpack_bytes = c_bytes + d_bytes;
  const double moved = pack_bytes + unpack_bytes;
  const auto copy_bytes = static_cast<size_t>(moved / 2);
  DeviceMemory src(copy_bytes), dst(copy_bytes);
  PRUNEX_CUDA_CHECK(cudaMemsetAsync(src.get(), 1, copy_bytes, s));

  std::vector<const float*> zc, vc;
  for (auto& d : z.dev) zc.push_back(d.data());
  for (auto& d : v.dev) vc.push_back(d.data());
  auto op = out.ptrs();
  CudaEvent e0, e1, e2, e3;
  std::vector<double> t_pack, t_unpack, t_both, t_copy;
  for (long it = 0; it < warmup + iters; ++it) {
    e0.record(s);
    gc.pack(zc.data(), vc.data(), buckets.data(), s);
    e1.record(s);
    gc.unpack(buckets.data(), op.data(), 1.0f, s);
    e2.record(s);
    PRUNEX_CUDA_CHECK(
        cudaMemcpyAsync(dst.get(), src.get(), copy_bytes, cudaMemcpyDeviceToDevice, s));
    e3.record(s);
    e3.synchronize();
    if (it < warmup) continue;
    t_pack.push_back(e1.seconds_since(e0) * 1e6);
    t_unpack.push_back(e2.seconds_since(e1) * 1e6);
    t_both.push_back(e2.seconds_since(e0) * 1e6);
    t_copy.push_back(e3.seconds_since(e2) * 1e6);
  }

  // Check against the CPU pack/unpack of the same tensors.
  std::vector<const float*> zhc, vhc;
  for (auto& h : z.host) zhc.push_back(h.data());
  for (auto& h : v.host) vhc.push_back(h.data());
  BucketSet cpu_buckets(plan);
  pack(plan, zhc.data(), vhc.data(), cpu_buckets.data());
  const std::vector<float> got = buckets.download();
  long pack_wrong = 0;
  for (int b = 0; b < cpu_buckets.size(); ++b)
    pack_wrong += count_bit_diffs(got.data() + b * plan.bucket_capacity(), cpu_buckets.bucket(b),
                                  cpu_buckets.values(b));
  long unpack_wrong = 0;
  {
    std::vector<std::vector<float>> want(n_layers);
    std::vector<float*> wp;
    for (size_t l = 0; l < n_layers; ++l) {
      want[l].resize(layout.layers[l].numel());
      wp.push_back(want[l].data());
    }
    unpack(plan, cpu_buckets.data(), wp.data(), 1.0f);
    for (size_t l = 0; l < n_layers; ++l) {
      const auto back = out.dev[l].download();
      unpack_wrong += count_bit_diffs(back.data(), want[l].data(), layout.layers[l].numel());
    }
  }

  const double dense_weights = d_bytes;  // projection reads and writes the pruned layers
  std::vector<BenchRow> rows = {
      cuda_row("pack", pack_bytes, median(t_pack), pack_wrong),
      cuda_row("unpack", unpack_bytes, median(t_unpack), unpack_wrong),
      cuda_row("pack+unpack", moved, median(t_both), pack_wrong + unpack_wrong),
      cuda_row("memcpyD2D", 2.0 * copy_bytes, median(t_copy), 0),
      cuda_row("projection", dense_weights, median(t_proj), proj_wrong)};
  const double ratio = rows[3].algbw_gbs > 0 ? rows[2].algbw_gbs / rows[3].algbw_gbs : 0.0;
  cudaDeviceProp prop{};
  int dev = 0;
  PRUNEX_CUDA_CHECK(cudaGetDevice(&dev));
  PRUNEX_CUDA_CHECK(cudaGetDeviceProperties(&prop, dev));

  print_bench_header(
      stdout, fmt::format("gpu kernels on {}: {} ({} classes), {} keep {}, {} of {} "
                          "layers pruned, {} buckets of {} MiB",
                          prop.name, layout.model, layout.classes, sparsity_kinds_name(spec.kinds),
                          spec.global.str(), spec.pruned_layers(), n_layers, plan.buckets(),
                          plan.bucket_capacity() * 4 >> 20));
  for (const auto& r : rows) print_bench_row(stdout, r);
  print_bench_footer(stdout, rows);
  fmt::print("# dense {:.1f} MB, compact {:.1f} MB ({:.1f}%), mask density {:.3f}\n", d_bytes / 1e6,
             c_bytes / 1e6, 100.0 * c_bytes / d_bytes, cpu_mask.density());
  fmt::print("# pack+unpack {:.1f} GB/s, D2D copy {:.1f} GB/s, ratio {:.3f} (target >= 0.80)\n",
             rows[2].algbw_gbs, rows[3].algbw_gbs, ratio);
  print_sector_traffic(layout, cpu_mask, c_bytes, d_bytes, median(t_both), rows[3].algbw_gbs, 32,
                       "sectors");
  fmt::print("# projection {:.3f} ms per model (median of {})\n", median(t_proj) / 1e3, iters);

  const long wrong = pack_wrong + unpack_wrong + proj_wrong;
  if (!cfg.json.empty()) {
    const nlohmann::json j = {{"gpu", prop.name},
                              {"model", layout.model},
                              {"sparsity", sparsity_kinds_name(spec.kinds)},
                              {"keep", spec.global.str()},
                              {"pack_unpack_gbs", rows[2].algbw_gbs},
                              {"memcpy_d2d_gbs", rows[3].algbw_gbs},
                              {"ratio", ratio},
                              {"projection_ms", median(t_proj) / 1e3},
                              {"compact_bytes", plan.compact_bytes()},
                              {"dense_bytes", plan.dense_bytes()},
                              {"wrong", wrong},
                              {"rows", bench_rows_json(rows)}};
    write_file_atomic(cfg.json, j.dump(2) + "\n");
  }
  return wrong == 0 ? 0 : 1;
}

}  // namespace prunex

#endif  // PRUNEX_HAVE_NCCL
