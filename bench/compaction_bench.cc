// `prunex bench --op compaction`: times pack + unpack (section 4.4 shrinkage and recovery)
// over a model's real layer shapes against a plain memcpy moving the same number of bytes,
// and checks the round trip element by element (#wrong).
//
// Bytes counted (read + written): pack reads the kept slices of z and v and writes the
// compact buffer (3C); unpack reads it and writes the full tensors, zeros included (C + D).
// The memcpy copies (4C + D) / 2 bytes, so both rows count the same traffic and the ratio
// of throughputs is the ratio of times. Times are medians over the -n timed iterations.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstring>
#include <nlohmann/json.hpp>

#include "bench/model_bench.h"
#include "engine/compaction.h"
#include "engine/error.h"
#include "engine/projection.h"
#include "records/bench_rows.h"
#include "records/run_record.h"
#include "workloads/layers/model_zoo.h"

namespace prunex {

namespace {

using Clock = std::chrono::steady_clock;

double elapsed_us(Clock::time_point t0) {
  return std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
}

// Elements of the unpacked model that differ from z + v under the mask (zero elsewhere).
long count_wrong(const ModelLayout& layout, const ModelMask& mask,
                 const std::vector<std::vector<float>>& z, const std::vector<std::vector<float>>& v,
                 const std::vector<std::vector<float>>& out) {
  long wrong = 0;
  for (size_t l = 0; l < layout.layers.size(); ++l) {
    const LayerMask& m = mask[l];
    const LayerDims d = m.dims;
    for (int64_t o = 0; o < d.out; ++o)
      for (int64_t c = 0; c < d.in; ++c) {
        const bool kept = m.keep_out[o] && m.keep_in[c];
        for (int64_t p = 0; p < d.k; ++p) {
          const int64_t i = (o * d.in + c) * d.k + p;
          const float want = kept ? z[l][i] + v[l][i] : 0.0f;
          wrong += out[l][i] != want ? 1 : 0;
        }
      }
  }
  return wrong;
}

BenchRow cpu_row(const std::string& op, double bytes, double us, long wrong) {
  return memory_bench_row(op, "cpu", bytes, us, wrong);
}

}  // namespace

int run_compaction_bench(const ModelBenchConfig& cfg) {
  const ModelLayout& layout = cfg.layout;
  const SparsitySpec& spec = cfg.spec;
  const long iters = cfg.iters, warmup = cfg.warmup;

  // z: the projected node consensus (so its masks are what a real projection gives on
  // unstructured values); v: a dense dual.
  const size_t n_layers = layout.layers.size();
  std::vector<std::vector<float>> z(n_layers), v(n_layers), out(n_layers);
  std::vector<float*> zw(n_layers), ow(n_layers);
  std::vector<const float*> zp(n_layers), vp(n_layers);
  for (size_t l = 0; l < n_layers; ++l) {
    const auto n = static_cast<size_t>(layout.layers[l].numel());
    z[l].resize(n);
    v[l].resize(n);
    out[l].assign(n, 0.0f);
    fill_random(z[l], 2 * l + 1);
    fill_random(v[l], 2 * l + 2);
    zw[l] = z[l].data();
    zp[l] = z[l].data();
    vp[l] = v[l].data();
    ow[l] = out[l].data();
  }
  const ModelMask mask = project_model(zw.data(), layout, spec);
  const CompactionPlan plan(layout, mask);
  BucketSet buckets(plan);

  const double c_bytes = static_cast<double>(plan.compact_bytes());
  const double d_bytes = static_cast<double>(plan.dense_bytes());
  const double pack_bytes = 3 * c_bytes, unpack_bytes = c_bytes + d_bytes;
  const double moved = pack_bytes + unpack_bytes;

  const auto copy_bytes = static_cast<size_t>(moved / 2);
  std::vector<char> src(copy_bytes, 1), dst(copy_bytes, 0);

  // pack, unpack and memcpy take turns within each iteration, so a busy neighbour on a
  // shared machine slows all three alike; medians drop the outliers.
  std::vector<double> t_pack, t_unpack, t_both, t_copy;
  for (long it = 0; it < warmup + iters; ++it) {
    auto t0 = Clock::now();
    pack(plan, zp.data(), vp.data(), buckets.data());
    const double a = elapsed_us(t0);
    t0 = Clock::now();
    unpack(plan, buckets.data(), ow.data());
    const double b = elapsed_us(t0);
    t0 = Clock::now();
    std::memcpy(dst.data(), src.data(), copy_bytes);
    const double c = elapsed_us(t0);
    if (it < warmup) continue;
    t_pack.push_back(a);
    t_unpack.push_back(b);
    t_both.push_back(a + b);
    t_copy.push_back(c);
  }
  const double pack_us = median(t_pack), unpack_us = median(t_unpack);
  const double both_us = median(t_both), memcpy_us = median(t_copy);
  const long wrong = count_wrong(layout, mask, z, v, out);
  const long copy_wrong =
      static_cast<long>(copy_bytes - std::count(dst.begin(), dst.end(), char(1)));

  std::vector<BenchRow> rows = {cpu_row("pack", pack_bytes, pack_us, 0),
                                cpu_row("unpack", unpack_bytes, unpack_us, wrong),
                                cpu_row("pack+unpack", moved, both_us, wrong),
                                cpu_row("memcpy", 2.0 * copy_bytes, memcpy_us, copy_wrong)};
  const double pu_gbs = rows[2].algbw_gbs, mc_gbs = rows[3].algbw_gbs;
  const double ratio = mc_gbs > 0 ? pu_gbs / mc_gbs : 0.0;

  print_bench_header(stdout,
                     fmt::format("compaction: {} ({} classes), {} keep {}, {} of {} layers "
                                 "pruned, {} buckets of {} MiB",
                                 layout.model, layout.classes, sparsity_kinds_name(spec.kinds),
                                 spec.global.str(), spec.pruned_layers(), n_layers, plan.buckets(),
                                 plan.bucket_capacity() * 4 >> 20));
  for (const auto& r : rows) print_bench_row(stdout, r);
  print_bench_footer(stdout, rows);
  fmt::print("# dense {:.1f} MB, compact {:.1f} MB ({:.1f}%), mask density {:.3f}\n", d_bytes / 1e6,
             c_bytes / 1e6, 100.0 * c_bytes / d_bytes, mask.density());
  fmt::print("# pack+unpack {:.3f} GB/s, memcpy {:.3f} GB/s, ratio {:.3f}\n", pu_gbs, mc_gbs,
             ratio);
  // The CPU moves memory in 64-byte lines: pack must read every line of z and v that holds a
  // kept float, so this ratio is against a copy of the bytes pack+unpack cannot avoid.
  const double line_ratio =
      print_sector_traffic(layout, mask, c_bytes, d_bytes, both_us, mc_gbs, 64, "lines");

  if (!cfg.json.empty()) {
    const nlohmann::json j = {{"model", layout.model},
                              {"sparsity", sparsity_kinds_name(spec.kinds)},
                              {"keep", spec.global.str()},
                              {"pack_unpack_gbs", pu_gbs},
                              {"memcpy_gbs", mc_gbs},
                              {"ratio", ratio},
                              {"ratio_whole_lines", line_ratio},
                              {"compact_bytes", plan.compact_bytes()},
                              {"dense_bytes", plan.dense_bytes()},
                              {"buckets", plan.buckets()},
                              {"wrong", wrong + copy_wrong},
                              {"rows", bench_rows_json(rows)}};
    write_file_atomic(cfg.json, j.dump(2) + "\n");
  }
  return wrong + copy_wrong == 0 ? 0 : 1;
}

}  // namespace prunex
