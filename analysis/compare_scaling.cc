// Fig. 9 (strong scaling 8 -> 64 GPUs) against the paper, and the arithmetic on its Top-K
// explanation.
#include <fmt/format.h>

#include "analysis/paper_comparison.h"
#include "analysis/paper_numbers.h"
#include "analysis/run_quantities.h"
#include "engine/error.h"

namespace prunex {
namespace {

const ScalingReading& point(const std::map<int, ScalingReading>& pts, int gpus, const Doc& d,
                            const std::string& strategy) {
  return scaling_at(pts, gpus, strategy, d.path);
}

// Local steps per epoch of one GPU, as the plan builder counts them.
long steps_per_epoch(long samples, long batch, int gpus) {
  const long shard = (samples + gpus - 1) / gpus;
  return std::max(1L, (shard + batch - 1) / batch);
}

}  // namespace

Section compare_fig9(const Doc& scaling, const Doc& scaling_alt, int alt_epochs) {
  Section s;
  s.figure = "Fig. 9";
  s.title = "Fig. 9: strong scaling, ResNet-152, 8 to 64 GPUs";
  auto pts = [&](const Doc& d, const std::string& st) {
    return scaling_points(d.json, st, d.path);
  };
  const auto hs = pts(scaling, "hsadmm"), flat = pts(scaling, "hsadmm-flat"),
             ddp = pts(scaling, "ddp"), topk = pts(scaling, "topk"),
             hs_alt = pts(scaling_alt, "hsadmm");
  const auto& h64 = point(hs, 64, scaling, "hsadmm");
  const auto& d64 = point(ddp, 64, scaling, "ddp");
  const auto& t64 = point(topk, 64, scaling, "topk");
  const auto& f64 = point(flat, 64, scaling, "hsadmm-flat");
  const auto& a64 = point(hs_alt, 64, scaling_alt, "hsadmm");
  const auto& t8 = point(topk, 8, scaling, "topk");
  const auto& cfg = scaling.json.value("config", nlohmann::json::object());
  const long samples = cfg.value("samples", 50000L), batch = cfg.value("batch", 128L);

  s.intro = fmt::format(
      "Time per epoch (E = {} local epoch per outer iteration, so every epoch ends in one "
      "consensus) at 8, 16, 32, 64 GPUs; speedup over 8 GPUs. The E = {} row is the paper's "
      "lower bound on local epochs (section 5.1.5: \"5-10 inner (local) training epochs\"). "
      "E = 1 is the toolkit's default, chosen before this comparison, not to match it.\n",
      cfg.value("local_epochs", 1), alt_epochs);
  const std::string payload_note =
      "the inter-node payload at channel keep 0.5 is about half of dense, not 40% (Fig. 6), "
      "and each node leader's all-reduce drives one NIC rail while a flat world ring runs one "
      "channel per rail (Puhti: two HDR100 rails; Fig. 7 table)";
  s.rows = {
      {s.figure, "speedup_64_hsadmm", paper::kSpeedup64Hsadmm, h64.speedup,
       "E = 1; " + payload_note},
      {s.figure, "efficiency_64_hsadmm", paper::kEfficiency64Hsadmm, h64.efficiency, "speedup / 8"},
      {s.figure, fmt::format("speedup_64_hsadmm_e{}", alt_epochs), paper::kSpeedup64Hsadmm,
       a64.speedup,
       fmt::format("E = {}: one consensus per {} epochs, so communication weighs {}x less than at "
                   "E = 1",
                   alt_epochs, alt_epochs, alt_epochs)},
      {s.figure, "speedup_64_ddp", paper::kSpeedup64Ddp, d64.speedup,
       "close: dense 232.7 MB all-reduce every step in 25 MiB buckets overlapped with "
       "backward, a flat ring on both rails; the paper gives no per-size times to locate the "
       "rest"},
      {s.figure, "efficiency_64_ddp", paper::kEfficiency64Ddp, d64.efficiency,
       fmt::format("speedup / 8 (the paper's 5.81 / 8 = {}, printed 72.7%)",
                   percent(paper::kSpeedup64Ddp / 8, 2))},
      {s.figure, "speedup_64_topk", paper::kSpeedup64Topk, t64.speedup,
       "1% values + indices all-gathered every step; selection modeled as one memory pass, no "
       "sort cost; a per-step cost would raise this speedup, not lower it (below)"},
      {s.figure, "efficiency_64_topk", std::nullopt, t64.efficiency,
       fmt::format("not stated (3.71 / 8 = {})", percent(paper::kSpeedup64Topk / 8))},
      {s.figure, "speedup_64_hsadmm_flat", std::nullopt, f64.speedup,
       "PruneX (AR) is not in Fig. 9: one dense world all-reduce per epoch, both rails"},
  };
  // The times behind the speedups, with their error bands (simulate/error_band.h).
  for (const auto& [name, q] : {std::pair{"hsadmm", &h64}, {"ddp", &d64}, {"topk", &t64}})
    s.rows.push_back({s.figure, std::string("epoch_s_64_") + name, std::nullopt,
                      q->time_per_epoch_s, "seconds per epoch; " + band_text(*q)});

  // A per-step cost c that is the same at every GPU count adds steps(g) x c to an epoch.
  const long s8 = steps_per_epoch(samples, batch, 8), s64 = steps_per_epoch(samples, batch, 64);
  const double T8 = t8.time_per_epoch_s, T64 = t64.time_per_epoch_s;
  auto speedup_with = [&](double c) { return (T8 + s8 * c) / (T64 + s64 * c); };
  s.text = fmt::format(
      "**Top-K's 3.71x and sorting overhead.** The paper attributes Top-K's saturation to \"the "
      "computational overhead of sorting\". In strong scaling with a fixed batch of {} per GPU "
      "the steps per epoch fall from {} (8 GPUs) to {} (64 GPUs), so a selection cost c per "
      "step that is the same on every GPU count shrinks with the GPUs like compute does: the "
      "speedup (T8 + {} c) / (T64 + {} c), with our T8 = {} s and T64 = {} s, rises from {} "
      "(c = 0) through {} (c = 10 ms) and {} (c = 100 ms) towards {} / {} = {}. No such cost "
      "brings it down to 3.71; what grows with the GPU count is the all-gather (every rank "
      "receives n blocks) and the sum of n blocks, which the model includes.\n",
      batch, s8, s64, s8, s64, sig4(T8), sig4(T64), sig4(speedup_with(0)), sig4(speedup_with(0.01)),
      sig4(speedup_with(0.1)), s8, s64, sig4(static_cast<double>(s8) / s64));
  return s;
}

}  // namespace prunex
