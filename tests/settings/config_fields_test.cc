// canonical_config: today's spelling of a config or record's keys. "backend" was the
// executor's name in records before 2026-11-25 and is train's --backend option today.
#include "settings/config_fields.h"

#include <gtest/gtest.h>

namespace prunex {
namespace {

using nlohmann::json;

TEST(CanonicalConfig, OldRecordsBackendIsTheExecutor) {
  EXPECT_EQ(canonical_config(json{{"backend", "mpi"}}), (json{{"executor", "mpi"}}));
  EXPECT_EQ(canonical_config(json{{"backend", "simgrid"}}), (json{{"executor", "simgrid"}}));
}

TEST(CanonicalConfig, TrainsBackendOptionSurvives) {
  // A train record of today: the option and the executor side by side.
  EXPECT_EQ(canonical_config(json{{"backend", "nccl"}, {"executor", "mpi"}}),
            (json{{"backend", "nccl"}, {"executor", "mpi"}}));
  EXPECT_EQ(canonical_config(json{{"backend", "mpi"}, {"executor", "mpi"}}),
            (json{{"backend", "mpi"}, {"executor", "mpi"}}));
  // A hand-written config: nccl was never an executor.
  EXPECT_EQ(canonical_config(json{{"backend", "nccl"}}), (json{{"backend", "nccl"}}));
}

TEST(CanonicalConfig, UnderscoresBecomeDashes) {
  EXPECT_EQ(canonical_config(json{{"gpus_per_node", 2}, {"t_freeze", 3}}),
            (json{{"gpus-per-node", 2}, {"t-freeze", 3}}));
}

}  // namespace
}  // namespace prunex
