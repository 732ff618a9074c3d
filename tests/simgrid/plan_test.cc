// Iteration plans on the simulator: compute and memory steps at the GPU's effective speed,
// collectives at their closed-form times, and the overlap rules of PlanStep.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "backends/simgrid/sim_cluster.h"
#include "engine/error.h"
#include "simulate/fork_run.h"
#include "tests/common/sim_topologies.h"

namespace prunex {
namespace {

using namespace test;

PlanStep compute(double flops) {
  PlanStep s;
  s.phase = Phase::local_compute;
  s.kind = StepKind::compute;
  s.flops = flops;
  return s;
}

PlanStep memory(double bytes) {
  PlanStep s;
  s.phase = Phase::pack;
  s.kind = StepKind::memory;
  s.mem_bytes = bytes;
  return s;
}

PlanStep allreduce(Phase phase, Group g, double bytes, int overlap_with = -1, double ready = 0) {
  PlanStep s;
  s.phase = phase;
  s.kind = StepKind::collective;
  s.group = g;
  s.bytes = static_cast<std::size_t>(bytes);
  s.overlap_with = overlap_with;
  s.ready_fraction = ready;
  return s;
}

// The iteration's seconds, then each step's start and duration, in order.
std::vector<double> step_times(const sim::PlanTiming& t) {
  std::vector<double> v{t.iteration_seconds};
  for (const auto& st : t.steps) v.insert(v.end(), {st.start_s, st.seconds});
  return v;
}

TEST(SimPlan, StepsAndOverlapFollowTheirArithmetic) {
  // 4 nodes x 2 GPUs on a star; GPU: 10 TFLOP/s x 0.5, 800 GB/s.
  const double s = 1e8;
  IterationPlan plan;
  plan.steps = {compute(5e12),                                         // 1 s
                allreduce(Phase::allreduce, Group::intra, s, 0, 0.5),  // ready at 0.5 s
                allreduce(Phase::allreduce, Group::intra, s, 0, 0.5),  // queued behind
                memory(8e8),                                           // after all: 1 ms
                allreduce(Phase::inter_allreduce, Group::inter, s)};
  const auto r = sim::fork_run([&] {
    sim::SimCluster c(star_topology(4, 2), {4, 2});
    const sim::PlanTiming t = c.run_plan(plan);
    if (t.network_model.rfind("CM02", 0) != 0) throw std::runtime_error("model not recorded");
    std::vector<double> v = step_times(t);
    for (double x : t.steps[4].rank_seconds) v.push_back(x);
    v.push_back(t.phase_seconds.at(Phase::allreduce));
    return v;
  });
  const double d_intra = 2 * kPortLat + s / kPortBw;  // ring of 2: 2(n-1) a + 2(n-1)/n S/B
  const double d_inter = 6 * kNicLat + 1.5 * s / kNicBw;
  const double want[][2] = {
      {0, 1.0}, {0.5, d_intra}, {0.5 + d_intra, d_intra}, {1.0, 1e-3}, {1.001, d_inter}};
  for (int i = 0; i < 5; ++i) {
    EXPECT_NEAR(r[1 + 2 * i], want[i][0], 1e-9) << "start of step " << i;
    EXPECT_NEAR(r[2 + 2 * i], want[i][1], 1e-6 * want[i][1]) << "duration of step " << i;
  }
  EXPECT_NEAR(r[0], 1.001 + d_inter, 1e-6);
  for (int rank = 0; rank < 8; ++rank)  // only the node leaders take part in inter
    EXPECT_NEAR(r[11 + rank], rank % 2 == 0 ? d_inter : 0.0, 1e-9) << "rank " << rank;
  EXPECT_NEAR(r[19], 2 * d_intra, 1e-9);
}

// Interference (SimConfig::overlap_slowdown f): while a bucket runs inside the compute step,
// compute does 1/f of its work, so the step ends overlap x (1 - 1/f) later; a bucket queued
// behind the first starts after it.
TEST(SimPlan, InterferenceStretchesTheOverlappedCompute) {
  const double s = 1e8, f = 2;
  IterationPlan plan;
  plan.steps = {compute(5e12),                                         // 1 s alone
                allreduce(Phase::allreduce, Group::intra, s, 0, 0.5),  // ready at 0.5 s
                allreduce(Phase::allreduce, Group::intra, s, 0, 0.5),  // queued behind
                memory(8e8)};                                          // 1 ms after all
  const auto r = sim::fork_run([&] {
    sim::SimConfig cfg{4, 2};
    cfg.overlap_slowdown = f;
    sim::SimCluster c(star_topology(4, 2), cfg);
    const sim::PlanTiming t = c.run_plan(plan);
    std::vector<double> v = step_times(t);
    v.push_back(t.phase_seconds.at(Phase::local_compute));
    return v;
  });
  const double d = 2 * kPortLat + s / kPortBw;  // each bucket, as above; both inside the step
  ASSERT_LT(2 * d, 0.5);
  const double compute_s = 1 + 2 * d * (1 - 1 / f);
  EXPECT_NEAR(r[1], 0, 1e-12);
  EXPECT_NEAR(r[2], compute_s, 1e-9);
  EXPECT_NEAR(r[3], 0.5, 1e-9);        // ready half-way through the step as it then stood
  EXPECT_NEAR(r[5], 0.5 + d, 1e-9);    // queued behind the first (ready earlier, at 0.5 + d/4)
  EXPECT_NEAR(r[7], compute_s, 1e-9);  // the memory pass after the step
  EXPECT_NEAR(r[0], compute_s + 1e-3, 1e-9);
  EXPECT_NEAR(r[9], compute_s, 1e-9);  // local_compute's phase time includes the stretch
}

// A compute step's fixed seconds (a framework's per-step cost) add to its FLOPs' time on every
// rank, times a straggler's factor, and an overlapped bucket's ready time scales with the
// longer step: 1 s of FLOPs + 0.2 s, a bucket ready half-way starts at 0.6 s.
TEST(SimPlan, FixedSecondsAddToTheComputeStep) {
  const double s = 1e8, fixed = 0.2;
  IterationPlan plan;
  plan.steps = {compute(5e12),                                         // 1 s of FLOPs
                allreduce(Phase::allreduce, Group::intra, s, 0, 0.5),  // ready half-way
                memory(8e8)};                                          // 1 ms after all
  plan.steps[0].fixed_s = fixed;
  const auto r = sim::fork_run([&] {
    sim::SimConfig cfg{4, 2};
    cfg.compute_factor.assign(8, 1.0);
    cfg.compute_factor[3] = 1.5;  // a straggler: its FLOPs and its fixed part 1.5x
    sim::SimCluster c(star_topology(4, 2), cfg);
    const sim::PlanTiming t = c.run_plan(plan);
    std::vector<double> v = step_times(t);
    for (double x : t.steps[0].rank_seconds) v.push_back(x);
    return v;
  });
  const double slow = 1.5 * (1 + fixed);
  EXPECT_NEAR(r[2], slow, 1e-9);        // the step: its slowest rank
  EXPECT_NEAR(r[3], 0.5 * slow, 1e-9);  // the bucket: half-way through the step
  EXPECT_NEAR(r[5], slow, 1e-9);        // the pass after both
  EXPECT_NEAR(r[0], slow + 1e-3, 1e-9);
  for (int rank = 0; rank < 8; ++rank)
    EXPECT_NEAR(r[7 + rank], rank == 3 ? slow : 1 + fixed, 1e-9) << "rank " << rank;
}

// Interference slows kernels, not a step's fixed seconds (launches, idle gaps): a bucket
// inside a step of 1 s of FLOPs + 0.2 s fixed stretches it by its overlap x 1/1.2 (the FLOPs'
// share) x (1 - 1/f).
TEST(SimPlan, InterferenceStretchesOnlyTheFlopsShare) {
  const double s = 1e8, f = 2, fixed = 0.2;
  IterationPlan plan;
  plan.steps = {compute(5e12),                                         // 1 s + 0.2 s
                allreduce(Phase::allreduce, Group::intra, s, 0, 0.5),  // ready at 0.6 s
                memory(8e8)};                                          // 1 ms after all
  plan.steps[0].fixed_s = fixed;
  const auto r = sim::fork_run([&] {
    sim::SimConfig cfg{4, 2};
    cfg.overlap_slowdown = f;
    sim::SimCluster c(star_topology(4, 2), cfg);
    return step_times(c.run_plan(plan));
  });
  const double d = 2 * kPortLat + s / kPortBw;
  ASSERT_LT(0.6 + d, 1.2);
  const double compute_s = 1.2 + d / 1.2 * (1 - 1 / f);
  EXPECT_NEAR(r[2], compute_s, 1e-9);
  EXPECT_NEAR(r[3], 0.6, 1e-9);
  EXPECT_NEAR(r[0], compute_s + 1e-3, 1e-9);
}

// A start delay (a framework's timer) comes on top of a bucket's ready time, before it queues
// behind the bucket ahead of it: the first bucket starts at 0.5 + w; the second, ready at 0.5 +
// w too, waits for the first to end; the pass after the step waits for both.
TEST(SimPlan, StartDelayComesBeforeTheQueue) {
  const double s = 1e8, w = 0.01;
  IterationPlan plan;
  plan.steps = {compute(5e12),                                         // 1 s
                allreduce(Phase::allreduce, Group::intra, s, 0, 0.5),  // ready at 0.5 s
                allreduce(Phase::allreduce, Group::intra, s, 0, 0.5),  // queued behind
                allreduce(Phase::allreduce, Group::intra, s, 0, 1.0),  // at the end, + w
                memory(8e8)};                                          // 1 ms after all
  for (int i = 1; i <= 3; ++i) plan.steps[i].start_delay_s = w;
  plan.steps[4].start_delay_s = w;  // a sequential step waits too
  const auto r = sim::fork_run([&] {
    sim::SimCluster c(star_topology(4, 2), {4, 2});
    const sim::PlanTiming t = c.run_plan(plan);
    std::vector<double> v{t.iteration_seconds};
    for (const auto& st : t.steps) v.push_back(st.start_s);
    return v;
  });
  const double d = 2 * kPortLat + s / kPortBw;
  ASSERT_LT(2 * d + w, 0.5);
  EXPECT_NEAR(r[2], 0.5 + w, 1e-9);
  EXPECT_NEAR(r[3], 0.5 + w + d, 1e-9);
  EXPECT_NEAR(r[4], 1.0 + w, 1e-9);
  EXPECT_NEAR(r[5], 1.0 + w + d + w, 1e-9);
  EXPECT_NEAR(r[0], 1.0 + 2 * w + d + 1e-3, 1e-9);
}

// Synchronisation skew c over the world's 8 ranks (e = E[max of 8 standard normals]): the
// first collective after 1 s of compute waits c x e x 1 s, an overlapped bucket that times its
// ready fraction, and a collective after another collective waits nothing; local steps k
// between synchronisations divide the wait by sqrt(k). e is taken from the definition by brute
// force here (the mean of 8-way maxima of seeded draws), not from the code under test.
TEST(SimPlan, SyncSkewDelaysTheFirstCollectiveAfterCompute) {
  std::mt19937_64 rng(11);
  std::normal_distribution<double> z;
  double e = 0;
  constexpr int trials = 200000;
  for (int t = 0; t < trials; ++t) {
    double m = -1e300;
    for (int i = 0; i < 8; ++i) m = std::max(m, z(rng));
    e += m / trials;
  }
  const double s = 1e8, c = 0.02;
  const double d = 2 * kPortLat + s / kPortBw;  // each intra ring all-reduce, as above
  for (double k : {1.0, 4.0}) {
    IterationPlan plan;
    plan.steps = {compute(5e12),                                         // 1 s
                  allreduce(Phase::allreduce, Group::intra, s, 0, 0.5),  // ready at 0.5 s
                  allreduce(Phase::allreduce, Group::world, s),          // after the step
                  allreduce(Phase::allreduce, Group::intra, s)};         // after that one
    plan.local_steps_per_sync = k;
    const auto r = sim::fork_run([&] {
      sim::SimConfig cfg{4, 2};
      cfg.sync_skew = c;
      sim::SimCluster c2(star_topology(4, 2), cfg);
      return step_times(c2.run_plan(plan));
    });
    // 4 standard errors of the brute-force e (its spread is under 0.6): 0.4% of the wait.
    const double wait = c * e * 1.0 / std::sqrt(k), tol = 4e-3 * wait;
    EXPECT_NEAR(r[3], 0.5 + 0.5 * wait, tol) << "k " << k;  // half of it, ready half-way
    EXPECT_NEAR(r[4], d, 1e-6 * d);
    EXPECT_NEAR(r[5], 1.0 + wait, tol) << "k " << k;  // after the step, all of it
    EXPECT_NEAR(r[7], r[5] + r[6], 1e-12) << "the next collective waits for no one";
    EXPECT_NEAR(r[0], r[7] + r[8], 1e-12);
  }
}

// The skew counts the compute since the ranks were last in step: a forward of 0.5 s and a
// backward of 1 s add up; a bucket ready half-way through the backward waits for 0.5 + 0.5 s
// of it; a compute step after a collective starts the count again, so the world all-reduce
// after the next 1 s of compute waits for that second only; a memory pass (the optimizer's)
// does not count.
TEST(SimPlan, SyncSkewCountsTheComputeSinceTheRanksWereInStep) {
  // E[max of 8 standard normals], from Harter's tables of normal order statistics (1961).
  const double s = 1e8, c = 0.02, e8 = 1.42360;
  IterationPlan plan;
  plan.steps = {compute(2.5e12),                                       // 0: forward, 0.5 s
                compute(5e12),                                         // 1: backward, 1 s
                allreduce(Phase::allreduce, Group::intra, s, 1, 0.5),  // 2: ready half-way
                memory(8e8),                                           // 3: 1 ms, not counted
                compute(5e12),                                         // 4: 1 s
                memory(8e8),                                           // 5
                allreduce(Phase::allreduce, Group::world, s)};         // 6
  const auto r = sim::fork_run([&] {
    sim::SimConfig cfg{4, 2};
    cfg.sync_skew = c;
    sim::SimCluster c2(star_topology(4, 2), cfg);
    const sim::PlanTiming t = c2.run_plan(plan);
    std::vector<double> v{t.iteration_seconds};
    for (const auto& st : t.steps) v.push_back(st.start_s);
    return v;
  });
  const double tol = 1e-5 * c;  // the table's 6 digits; the rest of the timing is exact
  EXPECT_NEAR(r[3], 0.5 + 0.5 + c * e8 * (0.5 + 0.5), tol);
  EXPECT_NEAR(r[7], r[6] + 1e-3 + c * e8 * 1.0, tol) << "the count began again at step 4";
}

// Pipelined buckets: a pack of 1 ms, its inter all-reduce after it, the next pack after the
// first (so it runs during that all-reduce), the second all-reduce after both its pack and the
// first all-reduce, a final pass after everything.
TEST(SimPlan, AfterStartsOnceTheListedStepsEnd) {
  const double s = 1e8;
  IterationPlan plan;
  PlanStep ar0 = allreduce(Phase::inter_allreduce, Group::inter, s);
  ar0.after = {0};
  PlanStep pack1 = memory(8e8);
  pack1.after = {0};
  PlanStep ar1 = allreduce(Phase::inter_allreduce, Group::inter, s);
  ar1.after = {2, 1};
  plan.steps = {memory(8e8), ar0, pack1, ar1, memory(8e8)};
  const auto r = sim::fork_run([&] {
    sim::SimCluster c(star_topology(4, 2), {4, 2});
    return step_times(c.run_plan(plan));
  });
  const double d_inter = 6 * kNicLat + 1.5 * s / kNicBw;  // > 1 ms: the packs hide behind it
  ASSERT_GT(d_inter, 1e-3);
  const double want[][2] = {{0, 1e-3},
                            {1e-3, d_inter},
                            {1e-3, 1e-3},  // during ar0
                            {1e-3 + d_inter, d_inter},
                            {1e-3 + 2 * d_inter, 1e-3}};
  for (int i = 0; i < 5; ++i) {
    EXPECT_NEAR(r[1 + 2 * i], want[i][0], 1e-9) << "start of step " << i;
    EXPECT_NEAR(r[2 + 2 * i], want[i][1], 1e-6 * want[i][1]) << "duration of step " << i;
  }
  EXPECT_NEAR(r[0], 2e-3 + 2 * d_inter, 1e-6);
}

TEST(SimPlan, BadOverlapIsAUsageError) {
  IterationPlan plan;
  plan.steps = {allreduce(Phase::allreduce, Group::world, 1e6, 0)};  // overlaps itself
  EXPECT_THROW(sim::fork_run([&] {
                 sim::SimCluster c(star_topology(2, 1), {2, 1});
                 c.run_plan(plan);
                 return std::vector<double>{};
               }),
               UsageError);
}

}  // namespace
}  // namespace prunex
