// Inception-v3 as torchvision builds it with aux_logits=False and transform_input=False (the
// layer table's architecture, workloads/layers/inception_layers.cc). BasicConv2d = conv
// without bias, BN (eps 0.001), ReLU. Blocks A-E concatenate their branches in torchvision's
// order. torchvision's initialisation: convolution and linear weights from a normal of
// standard deviation 0.1 truncated at +-2 (20 standard deviations: a clamp stands in for the
// resampling and changes nothing measurable), BN weight 1 / bias 0.
#include <torch/torch.h>

#include <string>
#include <vector>

#include "engine/error.h"
#include "workloads/torch/models.h"

namespace prunex::detail {
namespace {

namespace nn = torch::nn;

struct BasicConv2dImpl : nn::Module {
  BasicConv2dImpl(int in, int out, std::vector<int64_t> kernel, int stride = 1,
                  std::vector<int64_t> pad = {0, 0}) {
    conv = register_module(
        "conv",
        nn::Conv2d(nn::Conv2dOptions(in, out, kernel).stride(stride).padding(pad).bias(false)));
    bn = register_module("bn", nn::BatchNorm2d(nn::BatchNorm2dOptions(out).eps(0.001)));
  }
  torch::Tensor forward(const torch::Tensor& x) { return torch::relu(bn(conv(x))); }
  nn::Conv2d conv{nullptr};
  nn::BatchNorm2d bn{nullptr};
};
TORCH_MODULE(BasicConv2d);

BasicConv2d square(int in, int out, int k, int stride = 1, int pad = 0) {
  return BasicConv2d(in, out, std::vector<int64_t>{k, k}, stride, std::vector<int64_t>{pad, pad});
}
BasicConv2d wide(int in, int out, int n) {  // 1 x n, "same" padding
  return BasicConv2d(in, out, std::vector<int64_t>{1, n}, 1, std::vector<int64_t>{0, n / 2});
}
BasicConv2d tall(int in, int out, int n) {  // n x 1
  return BasicConv2d(in, out, std::vector<int64_t>{n, 1}, 1, std::vector<int64_t>{n / 2, 0});
}

torch::Tensor avg_pool_3x3(const torch::Tensor& x) {
  return torch::avg_pool2d(x, 3, 1, 1);
}

// A block holds its convolutions by torchvision's names.
struct Block : nn::Module {
  BasicConv2d& add(const std::string& name, BasicConv2d c) {
    convs.emplace_back(register_module(name, c));
    return convs.back();
  }
  torch::Tensor operator()(size_t i, const torch::Tensor& x) { return convs[i](x); }
  std::vector<BasicConv2d> convs;
};

struct InceptionAImpl : Block {
  InceptionAImpl(int in, int pool_features) {
    add("branch1x1", square(in, 64, 1));
    add("branch5x5_1", square(in, 48, 1));
    add("branch5x5_2", square(48, 64, 5, 1, 2));
    add("branch3x3dbl_1", square(in, 64, 1));
    add("branch3x3dbl_2", square(64, 96, 3, 1, 1));
    add("branch3x3dbl_3", square(96, 96, 3, 1, 1));
    add("branch_pool", square(in, pool_features, 1));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    auto& c = *this;
    return torch::cat({c(0, x), c(2, c(1, x)), c(5, c(4, c(3, x))), c(6, avg_pool_3x3(x))}, 1);
  }
};
TORCH_MODULE(InceptionA);

struct InceptionBImpl : Block {
  explicit InceptionBImpl(int in) {
    add("branch3x3", square(in, 384, 3, 2));
    add("branch3x3dbl_1", square(in, 64, 1));
    add("branch3x3dbl_2", square(64, 96, 3, 1, 1));
    add("branch3x3dbl_3", square(96, 96, 3, 2));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    auto& c = *this;
    return torch::cat({c(0, x), c(3, c(2, c(1, x))), torch::max_pool2d(x, 3, 2)}, 1);
  }
};
TORCH_MODULE(InceptionB);

struct InceptionCImpl : Block {
  InceptionCImpl(int in, int c7) {
    add("branch1x1", square(in, 192, 1));
    add("branch7x7_1", square(in, c7, 1));
    add("branch7x7_2", wide(c7, c7, 7));
    add("branch7x7_3", tall(c7, 192, 7));
    add("branch7x7dbl_1", square(in, c7, 1));
    add("branch7x7dbl_2", tall(c7, c7, 7));
    add("branch7x7dbl_3", wide(c7, c7, 7));
    add("branch7x7dbl_4", tall(c7, c7, 7));
    add("branch7x7dbl_5", wide(c7, 192, 7));
    add("branch_pool", square(in, 192, 1));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    auto& c = *this;
    auto dbl = c(8, c(7, c(6, c(5, c(4, x)))));
    return torch::cat({c(0, x), c(3, c(2, c(1, x))), dbl, c(9, avg_pool_3x3(x))}, 1);
  }
};
TORCH_MODULE(InceptionC);

struct InceptionDImpl : Block {
  explicit InceptionDImpl(int in) {
    add("branch3x3_1", square(in, 192, 1));
    add("branch3x3_2", square(192, 320, 3, 2));
    add("branch7x7x3_1", square(in, 192, 1));
    add("branch7x7x3_2", wide(192, 192, 7));
    add("branch7x7x3_3", tall(192, 192, 7));
    add("branch7x7x3_4", square(192, 192, 3, 2));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    auto& c = *this;
    return torch::cat({c(1, c(0, x)), c(5, c(4, c(3, c(2, x)))), torch::max_pool2d(x, 3, 2)}, 1);
  }
};
TORCH_MODULE(InceptionD);

struct InceptionEImpl : Block {
  explicit InceptionEImpl(int in) {
    add("branch1x1", square(in, 320, 1));
    add("branch3x3_1", square(in, 384, 1));
    add("branch3x3_2a", wide(384, 384, 3));
    add("branch3x3_2b", tall(384, 384, 3));
    add("branch3x3dbl_1", square(in, 448, 1));
    add("branch3x3dbl_2", square(448, 384, 3, 1, 1));
    add("branch3x3dbl_3a", wide(384, 384, 3));
    add("branch3x3dbl_3b", tall(384, 384, 3));
    add("branch_pool", square(in, 192, 1));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    auto& c = *this;
    auto b3 = c(1, x);
    auto dbl = c(5, c(4, x));
    return torch::cat({c(0, x), torch::cat({c(2, b3), c(3, b3)}, 1),
                       torch::cat({c(6, dbl), c(7, dbl)}, 1), c(8, avg_pool_3x3(x))},
                      1);
  }
};
TORCH_MODULE(InceptionE);

class InceptionV3 : public TorchModel {
 public:
  InceptionV3(int classes, int in_channels) {
    stem_.push_back(register_module("Conv2d_1a_3x3", square(in_channels, 32, 3, 2)));
    stem_.push_back(register_module("Conv2d_2a_3x3", square(32, 32, 3)));
    stem_.push_back(register_module("Conv2d_2b_3x3", square(32, 64, 3, 1, 1)));
    stem_.push_back(register_module("Conv2d_3b_1x1", square(64, 80, 1)));
    stem_.push_back(register_module("Conv2d_4a_3x3", square(80, 192, 3)));
    blocks_ = nn::Sequential();
    blocks_->push_back(register_module("Mixed_5b", InceptionA(192, 32)));
    blocks_->push_back(register_module("Mixed_5c", InceptionA(256, 64)));
    blocks_->push_back(register_module("Mixed_5d", InceptionA(288, 64)));
    blocks_->push_back(register_module("Mixed_6a", InceptionB(288)));
    blocks_->push_back(register_module("Mixed_6b", InceptionC(768, 128)));
    blocks_->push_back(register_module("Mixed_6c", InceptionC(768, 160)));
    blocks_->push_back(register_module("Mixed_6d", InceptionC(768, 160)));
    blocks_->push_back(register_module("Mixed_6e", InceptionC(768, 192)));
    blocks_->push_back(register_module("Mixed_7a", InceptionD(768)));
    blocks_->push_back(register_module("Mixed_7b", InceptionE(1280)));
    blocks_->push_back(register_module("Mixed_7c", InceptionE(2048)));
    fc_ = register_module("fc", nn::Linear(2048, classes));
    torch::NoGradGuard no_grad;
    for (auto& m : modules(/*include_self=*/false)) {
      if (auto* c = m->as<nn::Conv2d>()) {
        c->weight.normal_(0.0, 0.1).clamp_(-2.0, 2.0);
      } else if (auto* fc = m->as<nn::Linear>()) {
        fc->weight.normal_(0.0, 0.1).clamp_(-2.0, 2.0);
      } else if (auto* bn = m->as<nn::BatchNorm2d>()) {
        bn->weight.fill_(1.0);
        bn->bias.zero_();
      }
    }
  }

  torch::Tensor forward(torch::Tensor x) override {
    PRUNEX_USAGE(x.dim() == 4 && x.size(2) >= 75 && x.size(3) >= 75,
                 "inception_v3 needs (N, C, H, W) inputs of at least 75x75, got ", x.sizes());
    x = stem_[2](stem_[1](stem_[0](x)));
    x = torch::max_pool2d(x, 3, 2);
    x = stem_[4](stem_[3](x));
    x = torch::max_pool2d(x, 3, 2);
    x = blocks_->forward(x);
    x = torch::adaptive_avg_pool2d(x, {1, 1}).flatten(1);
    return fc_(torch::dropout(x, 0.5, is_training()));
  }

 private:
  std::vector<BasicConv2d> stem_;
  nn::Sequential blocks_{nullptr};
  nn::Linear fc_{nullptr};
};

}  // namespace

ModelHandle make_inception_v3(int classes, int input_channels) {
  return std::make_shared<InceptionV3>(classes, input_channels);
}

}  // namespace prunex::detail
