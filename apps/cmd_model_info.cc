// `prunex model-info`: a model's layer table (names, roles, shapes, parameters, FLOPs) and
// totals, as a human table or JSON.
#include <fmt/format.h>

#include <climits>
#include <cmath>
#include <cstdio>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>

#include "apps/cli.h"
#include "engine/error.h"
#include "workloads/layers/model_zoo.h"

namespace prunex::cli {

namespace {

std::string names_list() {
  std::string s;
  for (const auto& n : model_names()) s += (s.empty() ? "" : ", ") + n;
  return s;
}

int int_option(const Args& args, const std::string& name, int fallback) {
  return static_cast<int>(args.get_int(name, fallback));  // [1, INT_MAX]: the declarations
}

std::string shape_text(const LayerInfo& l) {
  std::string s;
  for (int64_t d : l.shape) s += (s.empty() ? "" : "x") + std::to_string(d);
  return s;
}

// 11181642 -> "11,181,642".
std::string thousands(int64_t n) {
  std::string digits = std::to_string(n);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

void print_json(const ModelLayout& m) {
  nlohmann::json layers = nlohmann::json::array();
  for (const auto& l : m.layers)
    layers.push_back({{"name", l.name},
                      {"role", layer_role_name(l.role)},
                      {"shape", l.shape},
                      {"params", l.numel()},
                      {"flops", std::llround(l.forward_flops)}});
  const nlohmann::json j = {{"model", m.model},
                            {"classes", m.classes},
                            {"input", m.input_size},
                            {"input_channels", m.input_channels},
                            {"parameters", m.parameters()},
                            {"fp32_bytes", m.fp32_bytes()},
                            {"forward_flops", std::llround(m.forward_flops())},
                            {"layers", layers}};
  fmt::print("{}\n", j.dump(2));
}

void print_table(const ModelLayout& m) {
  size_t width = 4;
  for (const auto& l : m.layers) width = std::max(width, l.name.size());
  fmt::print("# {}: {} classes, input {}x{}x{} (forward FLOPs per sample)\n", m.model, m.classes,
             m.input_channels, m.input_size, m.input_size);
  fmt::print("{:<{}}  {:<9}  {:<16}  {:>12}  {:>10}\n", "name", width, "role", "shape", "params",
             "MFLOPs");
  for (const auto& l : m.layers)
    fmt::print("{:<{}}  {:<9}  {:<16}  {:>12}  {:>10.3f}\n", l.name, width, layer_role_name(l.role),
               shape_text(l), thousands(l.numel()), l.forward_flops / 1e6);
  fmt::print("\n{} tensors, {} parameters, {:.2f} MiB fp32, {:.4f} GFLOPs forward/sample\n",
             m.layers.size(), thousands(m.parameters()),
             static_cast<double>(m.fp32_bytes()) / (1024.0 * 1024.0), m.forward_flops() / 1e9);
}

int run_model_info(const Args& args) {
  if (args.flag("list")) {
    for (const auto& n : model_names()) fmt::print("{}\n", n);
    return 0;
  }
  const auto model = args.get("model");
  PRUNEX_USAGE(model.has_value(), "--model is required (one of ", names_list(), ")");
  const ModelLayout m =
      make_layout(*model, int_option(args, "classes", 10), int_option(args, "input", 32),
                  int_option(args, "input-channels", 3));
  if (args.flag("json"))
    print_json(m);
  else
    print_table(m);
  return 0;
}

PRUNEX_REGISTER_COMMAND(Command{
    "model-info",
    "a model's layer table: tensor names, shapes, parameters and forward FLOPs",
    "prunex model-info --model M [--classes C] [--input S] [--input-channels N] [--json]\n"
    "       prunex model-info --list",
    "Prints the parameter tensors of a model in torch's named_parameters() order with their\n"
    "role (conv, fc, bias, bn_weight, bn_bias), shape, parameter count and forward FLOPs for\n"
    "one sample of size NxSxS (multiply-add = 2; bias adds on the weight; BN 4/element;\n"
    "ReLU and pooling not counted), then totals: parameters, fp32 MiB, GFLOPs per sample.\n"
    "Each table is checked against torchvision's model at 224x224 (tests/cli/model_zoo.sh).\n\n"
    "examples:\n"
    "  prunex model-info --model resnet152\n"
    "  prunex model-info --model small_cnn --input 28 --input-channels 1 --json",
    {
        {"model", "M",
         "resnet18/34/50/101/152, wide_resnet50_2/101_2, resnext50_32x4d, resnext101_32x8d, "
         "vgg11/13/16/19 (each also _bn), alexnet, densenet121, mobilenet_v2, inception_v3, "
         "resnet20 or small_cnn (--list)",
         ""},
        {"list", "", "print the models' names, one per line, and exit", ""},
        integer_option("classes", "C", "outputs of the classifier head", "10", 1, INT_MAX),
        integer_option("input", "S", "input height = width in pixels", "32", 1, INT_MAX),
        integer_option("input-channels", "N",
                       "input channels (3 for CIFAR-10, 1 for Fashion-MNIST)", "3", 1, INT_MAX),
        {"json", "", "print a JSON object instead of the table", ""},
    },
    run_model_info});

}  // namespace
}  // namespace prunex::cli
