// settings/plan_settings.h: a recorded config as plan inputs, checked key by key against the
// values written in the config (and PlanInputs' defaults for keys an older record lacks).
#include "settings/plan_settings.h"

#include <gtest/gtest.h>

#include "engine/error.h"

namespace prunex {
namespace {

nlohmann::json live_record() {  // the keys a `prunex train` metrics.json config holds
  return {{"strategy", "hsadmm-rail"}, {"nodes", 3},
          {"gpus-per-node", 2},        {"batch", 16},
          {"samples", 1000},           {"local-epochs", 2},
          {"local-steps", 5},          {"sync-phases", true},
          {"bucket-mib", 0.5},         {"wire-dtype", "bf16"},
          {"pipeline-buckets", true}};
}

TEST(PlanSettings, EveryRecordedSettingReachesThePlanInputs) {
  const PlanInputs in = plan_inputs_of_config(live_record(), "test");
  EXPECT_EQ(in.run.strategy, Strategy::hsadmm_rail);
  EXPECT_EQ(in.nodes, 3);
  EXPECT_EQ(in.gpus_per_node, 2);
  EXPECT_EQ(in.run.batch, 16);
  EXPECT_EQ(in.samples, 1000);
  EXPECT_EQ(in.run.local_epochs, 2);
  EXPECT_EQ(in.run.local_steps, 5);
  EXPECT_FALSE(in.ddp_overlap);                    // train's --sync-phases
  EXPECT_EQ(bucket_bytes(in.run.hsadmm), 524288);  // 0.5 MiB
  EXPECT_EQ(in.run.hsadmm.wire_dtype, DType::bf16);
  EXPECT_TRUE(in.run.hsadmm.pipeline_buckets);
  nlohmann::json peers = {{"strategy", "cgx"},  {"nodes", 1},           {"gpus-per-node", 1},
                          {"batch", 1},         {"samples", 1},         {"topk-ratio", 0.05},
                          {"prune-ratio", 0.7}, {"ternary", true},      {"bits", 2},
                          {"bucket-size", 256}, {"ddp-overlap", false}, {"bucket-cap-mb", 0.5}};
  const PlanInputs p = plan_inputs_of_config(peers, "test");
  EXPECT_DOUBLE_EQ(p.run.topk.topk_ratio, 0.05);
  EXPECT_DOUBLE_EQ(p.run.pactrain.prune_ratio, 0.7);
  EXPECT_TRUE(p.run.pactrain.ternary);
  EXPECT_EQ(p.run.cgx.bits, 2);
  EXPECT_EQ(p.run.cgx.bucket_size, 256);
  EXPECT_FALSE(p.ddp_overlap);                     // simulate's ddp-overlap
  EXPECT_EQ(bucket_cap_bytes(p.run.ddp), 524288);  // int(0.5 * 1024 * 1024), as DDP computes it
}

TEST(PlanSettings, AnOlderRecordTakesTheDefaults) {
  nlohmann::json old = {
      {"strategy", "ddp"}, {"nodes", 2}, {"gpus-per-node", 1}, {"batch", 8}, {"samples", 64}};
  const PlanInputs in = plan_inputs_of_config(old, "old");
  const PlanInputs defaults;
  EXPECT_EQ(bucket_bytes(in.run.hsadmm), 32 << 20);
  EXPECT_EQ(bucket_cap_bytes(in.run.ddp), 25 << 20);  // PyTorch's bucket_cap_mb default
  EXPECT_EQ(in.run.hsadmm.wire_dtype, DType::f32);
  EXPECT_TRUE(in.ddp_overlap);
  EXPECT_EQ(in.run.local_epochs, defaults.run.local_epochs);
  EXPECT_EQ(in.run.cgx.bits, defaults.run.cgx.bits);
}

TEST(PlanSettings, MissingNullOrMistypedValuesNameTheKey) {
  for (const char* key : {"strategy", "nodes", "gpus-per-node", "batch", "samples"}) {
    nlohmann::json missing = live_record(), null = live_record();
    missing.erase(key);
    null[key] = nullptr;
    for (const auto& cfg : {missing, null}) {
      try {
        plan_inputs_of_config(cfg, "run.json");
        ADD_FAILURE() << key << " accepted";
      } catch (const UsageError& e) {
        EXPECT_NE(std::string(e.what()).find(std::string("config.") + key), std::string::npos)
            << e.what();
      }
    }
  }
  nlohmann::json wrong = live_record();
  wrong["pipeline-buckets"] = "yes";
  EXPECT_THROW(plan_inputs_of_config(wrong, "run.json"), UsageError);
  wrong = live_record();
  wrong["wire-dtype"] = "int4";
  EXPECT_THROW(plan_inputs_of_config(wrong, "run.json"), UsageError);
  EXPECT_THROW(plan_inputs_of_config(nlohmann::json::array(), "run.json"), UsageError);
  // Values the command line refuses are refused in a record too: the plan divides by them.
  for (const auto& [key, value] : std::vector<std::pair<const char*, int>>{{"batch", 0},
                                                                           {"nodes", 0},
                                                                           {"samples", 0},
                                                                           {"gpus-per-node", -1},
                                                                           {"local-epochs", 0}}) {
    wrong = live_record();
    wrong[key] = value;
    EXPECT_THROW(plan_inputs_of_config(wrong, "run.json"), UsageError) << key << " " << value;
  }
}

}  // namespace
}  // namespace prunex
