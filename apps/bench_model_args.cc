#include "apps/bench_model_args.h"

#include <climits>

#include "engine/error.h"
#include "workloads/layers/model_zoo.h"

namespace prunex::cli {

ModelBenchArgs parse_model_bench_args(const Args& args) {
  const std::string model = args.get_or("model", "resnet152");
  const long classes = args.get_int("classes", 10);
  PRUNEX_USAGE(classes >= 1 && classes <= INT_MAX, "--classes must be a positive integer");
  ModelBenchArgs out;
  out.iters = args.get_int("n", 20);
  out.warmup = args.get_int("w", 5);
  PRUNEX_USAGE(out.iters >= 1, "-n must be at least 1, got ", out.iters);
  PRUNEX_USAGE(out.warmup >= 0, "-w must be at least 0, got ", out.warmup);
  const SparsityKinds kinds = parse_sparsity_kinds(args.get_or("sparsity", "channel"));
  const KeepRate keep = KeepRate::parse(args.get_or("keep", "0.5"));
  out.layout = make_layout(model, static_cast<int>(classes));
  out.spec = SparsitySpec::build(out.layout, kinds, keep);
  return out;
}

}  // namespace prunex::cli
