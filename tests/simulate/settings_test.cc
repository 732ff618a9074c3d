// One name per setting: every setting a run shares (settings/run_fields.h) appears under its
// one name in every command that takes it (train, simulate and sweep: their field tables and
// their --help), in the config every run records, and changing it changes the plan (or what
// the run records) of every strategy it applies to and of no other
// (strategy_specific_settings(); a strategy it does not apply to gets the same plan, or
// refuses the setting). The platform's options (simulate/platform_fields.h) are
// checked the same way in every command that simulates.
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <set>
#include <string>

#include "engine/plan_builder.h"
#include "settings/run_fields.h"
#include "simulate/platform_fields.h"
#include "simulate/simulate_config.h"
#include "simulate/sweep.h"
#include "workloads/train/train_config.h"

namespace prunex {
namespace {

template <typename C>
int count_named(const std::vector<ConfigField<C>>& fields, const std::string& name) {
  int n = 0;
  for (const auto& f : fields) n += f.name == name;
  return n;
}

std::string help_of(const std::string& command) {
  std::string out;
  FILE* p = popen((std::string(PRUNEX_BINARY) + " " + command + " --help 2>&1").c_str(), "r");
  if (p == nullptr) return out;
  char buf[4096];
  for (std::size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  pclose(p);
  return out;
}

// An option line of --help ("  --name VALUE  help"), not a mention in another's text.
bool lists_option(const std::string& help, const std::string& name) {
  return help.find("\n  --" + name + " ") != std::string::npos;
}

TEST(Settings, EveryRunSettingHasOneNameInEveryCommandAndRecord) {
  const nlohmann::json train_record = config_to_json(TrainConfig{});
  sim::SimulateConfig sc;
  sc.topology = "puhti";
  sc.nodes = 2;
  sc.model = "resnet20";
  const nlohmann::json sim_record = sim::make_spec(sc).config;
  const std::string train_help = help_of("train"), sim_help = help_of("simulate"),
                    sweep_help = help_of("sweep");
  ASSERT_NE(sim_help.find("usage:"), std::string::npos) << PRUNEX_BINARY;
  for (const auto& f : fields::run_fields()) {
    SCOPED_TRACE(f.name);
    EXPECT_EQ(count_named(train_fields(), f.name), 1);
    EXPECT_EQ(count_named(sim::simulate_fields(), f.name), 1);
    EXPECT_EQ(count_named(sim::sweep_fields(), f.name), 1);
    EXPECT_TRUE(train_record.contains(f.name));
    EXPECT_TRUE(sim_record.contains(f.name));
    EXPECT_TRUE(lists_option(train_help, f.name));
    EXPECT_TRUE(lists_option(sim_help, f.name));
    EXPECT_TRUE(lists_option(sweep_help, f.name));
  }
}

TEST(Settings, ThePlatformsOptionsHaveOneNameInEveryCommandThatSimulates) {
  sim::SimulateConfig sc;
  sc.topology = "puhti";
  sc.nodes = 2;
  sc.model = "resnet20";
  const nlohmann::json sim_record = sim::make_spec(sc).config;
  const std::map<std::string, std::string> helps = {{"simulate", help_of("simulate")},
                                                    {"sweep", help_of("sweep")},
                                                    {"validate", help_of("validate")},
                                                    {"bench", help_of("bench")},
                                                    {"reproduce", help_of("reproduce")}};
  for (const auto& f : sim::platform_fields()) {
    SCOPED_TRACE(f.name);
    EXPECT_EQ(count_named(sim::simulate_fields(), f.name), 1);
    EXPECT_EQ(count_named(sim::sweep_fields(), f.name), 1);
    EXPECT_TRUE(sim_record.contains(f.name));
    for (const auto& [command, help] : helps) EXPECT_TRUE(lists_option(help, f.name)) << command;
  }
  EXPECT_TRUE(lists_option(help_of("calibrate"), "algo"));  // the only one calibrate fits by
}

// What a simulated run of cfg does: its plan (every step's kind, phase, group, op, bytes,
// FLOPs and memory), how often it repeats, the iterations, the freeze and the mask.
std::string fingerprint(const sim::SimulateConfig& cfg) {
  const sim::SimulateSpec s = sim::make_spec(cfg, /*records=*/false);
  const PlanInputs in = sim::spec_plan_inputs(s);
  // The freeze and the masks' densities are the consensus strategies' (their records).
  const bool consensus = is_consensus(cfg.strategy);
  std::string out = std::to_string(plan_repeats(in)) + " " + std::to_string(s.iterations) + " " +
                    std::to_string(consensus ? s.t_freeze : 0) + " " +
                    std::to_string(s.layout.parameters());
  for (std::size_t l = 0; consensus && l < s.layout.layers.size(); ++l)
    if (s.mask.pruned(l)) out += " " + std::to_string(s.mask[l].density());
  for (const PlanStep& p : build_plan(in).steps)
    out += "|" + std::to_string(static_cast<int>(p.kind)) + "," + std::string(phase_name(p.phase)) +
           "," + std::to_string(static_cast<int>(p.group)) + "," +
           std::to_string(static_cast<int>(p.op)) + "," + std::to_string(p.bytes) + "," +
           std::to_string(p.flops) + "," + std::to_string(p.mem_bytes) + "," +
           std::to_string(static_cast<int>(p.dtype)) + "," + std::to_string(p.overlap_with) + "," +
           std::to_string(p.after.size());
  return out;
}

// Another value of a setting: the text fields' from this table (a new text setting needs an
// entry), numbers doubled (or the lowest bound) unless the table below names a value that
// shows the setting's effect, booleans flipped.
std::string other_value(const ConfigField<RunSettings>& f, const RunSettings& base) {
  static const std::map<std::string, std::string> text = {{"strategy", "-"},
                                                          {"model", "resnet20"},
                                                          {"sparsity", "filter+channel"},
                                                          {"wire-dtype", "bf16"}};
  // Doubled, PyTorch's 2 keeps every matrix of resnet18 compressed (the most lopsided, fc's
  // 10 x 512, pays up to a rate of 9.8): at 100 its smaller convolutions travel whole.
  static const std::map<std::string, std::string> numbers = {{"min-compression-rate", "100"}};
  if (numbers.count(f.name)) return numbers.at(f.name);
  if (f.type == FieldType::boolean) return f.get(base).get<bool>() ? "false" : "true";
  if (f.type == FieldType::whole || f.type == FieldType::real) {
    const double v = f.get(base).get<double>();
    const double doubled = v == 0 ? 1 : 2 * v;
    const double x = doubled <= f.hi ? doubled : v / 2;
    return f.type == FieldType::whole ? std::to_string(static_cast<long>(x)) : std::to_string(x);
  }
  const auto it = text.find(f.name);
  EXPECT_NE(it, text.end()) << "no other value for text setting " << f.name;
  return it == text.end() ? "" : it->second;
}

std::vector<Strategy> users_of(const std::string& name) {
  for (const auto& [names, users] : fields::strategy_specific_settings())
    for (const auto& n : names)
      if (n == name) return users;
  return all_strategies();
}

TEST(Settings, ChangingASettingChangesThePlanOfTheStrategiesItAppliesToOnly) {
  for (const auto& f : fields::run_fields()) {
    SCOPED_TRACE(f.name);
    const auto users = users_of(f.name);
    int changed_users = 0;
    for (Strategy s : all_strategies()) {
      SCOPED_TRACE(strategy_name(s));
      sim::SimulateConfig base;
      base.topology = "puhti";
      base.nodes = 2;
      base.model = "resnet18";
      base.strategy = s;
      base.iterations = 4;
      base.hsadmm.bucket_mib = 0.0625;  // several inter-node buckets (pipelining needs 2)
      base.ddp.bucket_cap_mb = 4;       // several DDP buckets
      sim::SimulateConfig other = base;
      const std::string v = f.name == "strategy"
                                ? std::string(s == Strategy::ddp ? "hsadmm" : "ddp")
                                : other_value(f, base);
      f.set(other, v);
      const std::string before = fingerprint(base);
      std::string after;
      try {
        after = fingerprint(other);
      } catch (const UsageError&) {
        after = "refused";
      }
      const bool uses = std::find(users.begin(), users.end(), s) != users.end();
      if (uses) {
        EXPECT_NE(after, "refused") << "--" << f.name << " " << v;
        EXPECT_NE(after, before) << "--" << f.name << " " << v << " changes nothing";
        changed_users += after != before;
      } else {
        EXPECT_TRUE(after == before || after == "refused") << "--" << f.name << " " << v;
      }
    }
    EXPECT_GT(changed_users, 0) << "--" << f.name << " changes no plan";
  }
}

}  // namespace
}  // namespace prunex
