#include "settings/run_fields.h"

namespace prunex::fields {

bool parse_bool(const std::string& name, const std::string& v) {
  if (v == "1" || v == "true" || v == "on" || v == "yes") return true;
  if (v == "0" || v == "false" || v == "off" || v == "no") return false;
  throw UsageError("--" + name + " must be true or false, got '" + v + "'");
}

}  // namespace prunex::fields

namespace prunex::fields {
namespace {

using R = RunSettings;

ConfigField<R> strategy_field() {
  return {"strategy", "S",
          "hsadmm, hsadmm-flat, hsadmm-rail, ddp, topk, fp16, pactrain, cgx or powersgd",
          [](R& c, const std::string& v) { c.strategy = parse_strategy(v); },
          [](const R& c) { return nlohmann::json(std::string(strategy_name(c.strategy))); }};
}

std::vector<ConfigField<R>> hsadmm_fields() {
  using H = HsadmmSettings;
  return {
      nested_field<R, H>(
          {"sparsity", "KINDS", "filter, channel, shape, or a combination like filter+channel",
           [](H& c, const std::string& v) {
             parse_sparsity_kinds(v);
             c.sparsity = v;
           },
           [](const H& c) { return nlohmann::json(c.sparsity); }},
          &R::hsadmm),
      nested_field(real<H>("keep", "F", "kept fraction of groups in pruned layers, in (0, 1]",
                           &H::keep, 0, 1, true),
                   &R::hsadmm),
      nested_field(whole<H>("t-freeze", "T",
                            "freeze the mask after iteration T (no mask_sync after); 0: never",
                            &H::t_freeze, 0, kMaxCount),
                   &R::hsadmm),
      nested_field(real<H>("bucket-mib", "MIB", "H-SADMM inter-node bucket size in MiB",
                           &H::bucket_mib, 0, 4096, true),
                   &R::hsadmm),
  };
}

std::vector<ConfigField<R>> payload_fields() {
  using H = HsadmmSettings;
  return {
      nested_field<R, H>(
          {"wire-dtype", "T",
           "hsadmm / hsadmm-rail: the compact inter-node payload's type, fp32, bf16 or fp16 "
           "(converted in pack and unpack, summed in that type)",
           [](H& c, const std::string& v) { c.wire_dtype = parse_wire_dtype(v); },
           [](const H& c) { return nlohmann::json(wire_dtype_name(c.wire_dtype)); }},
          &R::hsadmm),
      nested_field(
          boolean<H>("pipeline-buckets",
                     "hsadmm / hsadmm-rail: bucket b's inter-node all-reduce runs while b + 1 is "
                     "packed and b - 1 unpacked",
                     &H::pipeline_buckets),
          &R::hsadmm),
  };
}

std::vector<ConfigField<R>> peer_fields() {
  using P = PactrainSettings;
  using X = CgxSettings;
  return {
      nested_field(
          real<TopkSettings>("topk-ratio", "R", "topk: kept fraction of each layer's gradient",
                             &TopkSettings::topk_ratio, 0, 1, true),
          &R::topk),
      nested_field(real<P>("prune-ratio", "R",
                           "pactrain: pruned fraction of every conv and fc weight, [0, 1)",
                           &P::prune_ratio, 0, 0.999999, false),
                   &R::pactrain),
      nested_field(
          boolean<P>("ternary",
                     "pactrain: TernGrad levels on the wire (MAX all-reduce of a scaler per "
                     "bucket, int8 SUM of the levels; at most 127 ranks)",
                     &P::ternary),
          &R::pactrain),
      nested_field(whole<X>("bits", "B", "cgx: quantization bits per value (1-8)", &X::bits, 1, 8),
                   &R::cgx),
      nested_field(whole<X>("bucket-size", "N",
                            "cgx: values per quantization bucket (two fp32 metadata each)",
                            &X::bucket_size, 1, kMaxCount),
                   &R::cgx),
      nested_field(
          whole<PowersgdSettings>("matrix-approximation-rank", "R",
                                  "powersgd: rank of the low-rank factors P and Q (PyTorch's "
                                  "matrix_approximation_rank)",
                                  &PowersgdSettings::matrix_approximation_rank, 1, kMaxCount),
          &R::powersgd),
      nested_field(real<PowersgdSettings>(
                       "min-compression-rate", "F",
                       "powersgd: a matrix travels as P and Q only when its floats are more than "
                       "F times theirs (PyTorch's min_compression_rate)",
                       &PowersgdSettings::min_compression_rate, 0, 1e12, false),
                   &R::powersgd),
  };
}

}  // namespace

const std::vector<ConfigField<R>>& run_fields() {
  static const std::vector<ConfigField<R>> fields = [] {
    std::vector<ConfigField<R>> f = {
        strategy_field(),
        text<R>("model", "M", "a model of the zoo (prunex model-info)", &R::model, true),
        whole<R>("classes", "C", "classes of the model head", &R::classes, 1, kMaxCount),
        whole<R>("iterations", "N", "outer iterations (ddp and the peers: rounds of local steps)",
                 &R::iterations, 1, kMaxCount),
        whole<R>("local-epochs", "E", "local epochs per outer iteration", &R::local_epochs, 1,
                 kMaxCount),
        whole<R>("local-steps", "N",
                 "local steps (full batches) per outer iteration instead of --local-epochs "
                 "(0: epochs)",
                 &R::local_steps, 0, kMaxCount),
        whole<R>("batch", "B", "mini-batch per rank / GPU (paper: 128)", &R::batch, 1, kMaxCount),
    };
    const auto hsadmm = hsadmm_fields();
    f.insert(f.end(), hsadmm.begin(), hsadmm.end());
    f.push_back(nested_field(
        real<DdpSettings>("bucket-cap-mb", "MB",
                          "ddp, fp16, pactrain, cgx, powersgd: PyTorch DDP's bucket_cap_mb, the "
                          "gradient buckets' size in MiB after the first (1 MiB) one",
                          &DdpSettings::bucket_cap_mb, 0, 4096, true),
        &R::ddp));
    for (const auto& group : {payload_fields(), peer_fields()})
      f.insert(f.end(), group.begin(), group.end());
    return f;
  }();
  return fields;
}

}  // namespace prunex::fields
