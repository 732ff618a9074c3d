// ResNets: the torchvision family (He et al. 2016, ImageNet stem, v1.5 bottleneck with the
// stride on the 3x3 conv, as torchvision) and the CIFAR ResNet-20 of the same paper (3x3
// stem, three stages of 16/32/64 channels). Submodule names are torchvision's so that
// named_parameters() reads conv1.weight, layer1.0.conv1.weight, layer2.0.downsample.0.weight,
// fc.weight, ...
#include <torch/torch.h>

#include "engine/error.h"
#include "workloads/layers/model_families.h"
#include "workloads/torch/models.h"

namespace prunex::detail {
namespace {

namespace nn = torch::nn;

nn::Conv2d conv(int in, int out, int k, int stride, int groups = 1) {
  return nn::Conv2d(
      nn::Conv2dOptions(in, out, k).stride(stride).padding(k / 2).bias(false).groups(groups));
}

// 1x1 conv + BN when the block changes shape ("option B" projection of He et al.).
nn::Sequential make_downsample(int in, int out, int stride) {
  return nn::Sequential(conv(in, out, 1, stride), nn::BatchNorm2d(out));
}

struct BasicBlockImpl : nn::Module {
  static constexpr int expansion = 1;
  BasicBlockImpl(int in, int planes, int stride, int /*base_width*/, int /*groups*/) {
    conv1 = register_module("conv1", conv(in, planes, 3, stride));
    bn1 = register_module("bn1", nn::BatchNorm2d(planes));
    conv2 = register_module("conv2", conv(planes, planes, 3, 1));
    bn2 = register_module("bn2", nn::BatchNorm2d(planes));
    if (stride != 1 || in != planes)
      downsample = register_module("downsample", make_downsample(in, planes, stride));
  }
  torch::Tensor forward(torch::Tensor x) {
    auto out = torch::relu(bn1(conv1(x)));
    out = bn2(conv2(out));
    return torch::relu(out + (downsample ? downsample->forward(x) : x));
  }
  nn::Conv2d conv1{nullptr}, conv2{nullptr};
  nn::BatchNorm2d bn1{nullptr}, bn2{nullptr};
  nn::Sequential downsample{nullptr};
};

// torchvision's Bottleneck: width = planes * base_width / 64 * groups (base_width 128 for
// wide_resnet50_2; 4 or 8 with 32 groups on the 3x3 conv for ResNeXt).
struct BottleneckImpl : nn::Module {
  static constexpr int expansion = 4;
  BottleneckImpl(int in, int planes, int stride, int base_width, int groups) {
    const int width = planes * base_width / 64 * groups;
    conv1 = register_module("conv1", conv(in, width, 1, 1));
    bn1 = register_module("bn1", nn::BatchNorm2d(width));
    conv2 = register_module("conv2", conv(width, width, 3, stride, groups));
    bn2 = register_module("bn2", nn::BatchNorm2d(width));
    conv3 = register_module("conv3", conv(width, planes * expansion, 1, 1));
    bn3 = register_module("bn3", nn::BatchNorm2d(planes * expansion));
    if (stride != 1 || in != planes * expansion)
      downsample = register_module("downsample", make_downsample(in, planes * expansion, stride));
  }
  torch::Tensor forward(torch::Tensor x) {
    auto out = torch::relu(bn1(conv1(x)));
    out = torch::relu(bn2(conv2(out)));
    out = bn3(conv3(out));
    return torch::relu(out + (downsample ? downsample->forward(x) : x));
  }
  nn::Conv2d conv1{nullptr}, conv2{nullptr}, conv3{nullptr};
  nn::BatchNorm2d bn1{nullptr}, bn2{nullptr}, bn3{nullptr};
  nn::Sequential downsample{nullptr};
};

struct Shape {
  bool imagenet_stem = true;  // 7x7/2 conv + 3x3/2 max-pool; else a 3x3/1 conv (CIFAR)
  std::vector<int> blocks;    // blocks per stage
  std::vector<int> planes;    // planes per stage (stage 0 has stride 1, the rest stride 2)
  int base_width = 64;
  int groups = 1;
};

class ResNet : public TorchModel {
 public:
  template <typename Block>
  static std::shared_ptr<ResNet> build(const Shape& spec, int classes, int in_channels) {
    auto net = std::make_shared<ResNet>();
    net->init<Block>(spec, classes, in_channels);
    return net;
  }

  torch::Tensor forward(torch::Tensor x) override {
    x = torch::relu(bn1_(conv1_(x)));
    if (imagenet_stem_) x = torch::max_pool2d(x, 3, 2, 1);
    for (auto& stage : stages_) x = stage->forward(x);
    x = torch::adaptive_avg_pool2d(x, {1, 1}).flatten(1);
    return fc_(x);
  }

 private:
  template <typename Block>
  void init(const Shape& spec, int classes, int in_channels) {
    imagenet_stem_ = spec.imagenet_stem;
    int in = spec.planes.front();
    conv1_ = register_module(
        "conv1",
        imagenet_stem_
            ? nn::Conv2d(nn::Conv2dOptions(in_channels, in, 7).stride(2).padding(3).bias(false))
            : conv(in_channels, in, 3, 1));
    bn1_ = register_module("bn1", nn::BatchNorm2d(in));
    for (size_t s = 0; s < spec.blocks.size(); ++s) {
      nn::Sequential stage;
      for (int b = 0; b < spec.blocks[s]; ++b) {
        const int stride = (s > 0 && b == 0) ? 2 : 1;
        stage->push_back(
            std::make_shared<Block>(in, spec.planes[s], stride, spec.base_width, spec.groups));
        in = spec.planes[s] * Block::expansion;
      }
      stages_.push_back(register_module("layer" + std::to_string(s + 1), stage));
    }
    fc_ = register_module("fc", nn::Linear(in, classes));
    torch::NoGradGuard no_grad;
    for (auto& m : modules(/*include_self=*/false)) {
      if (auto* c = m->as<nn::Conv2d>()) {
        nn::init::kaiming_normal_(c->weight, 0.0, torch::kFanOut, torch::kReLU);
      } else if (auto* bn = m->as<nn::BatchNorm2d>()) {
        bn->weight.fill_(1.0);
        bn->bias.zero_();
      }
    }
  }

  bool imagenet_stem_ = true;
  nn::Conv2d conv1_{nullptr};
  nn::BatchNorm2d bn1_{nullptr};
  std::vector<nn::Sequential> stages_;
  nn::Linear fc_{nullptr};
};

}  // namespace

// The architecture is the layer table's (workloads/layers/model_families.h).
ModelHandle make_resnet(const std::string& name, int classes, int input_channels) {
  const ResNetSpec s = resnet_spec(name);
  const Shape shape{s.imagenet_stem, s.blocks, std::vector<int>(s.planes.begin(), s.planes.end()),
                    static_cast<int>(s.width_per_group), s.groups};
  if (s.bottleneck) return ResNet::build<BottleneckImpl>(shape, classes, input_channels);
  return ResNet::build<BasicBlockImpl>(shape, classes, input_channels);
}

}  // namespace prunex::detail
