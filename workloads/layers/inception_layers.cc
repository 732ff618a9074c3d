// Inception-v3's layer table as torchvision builds it with aux_logits=False
// (torchvision/models/inception.py; Szegedy et al. 2016, arXiv:1512.00567). Every conv is a
// BasicConv2d: "<name>.conv" (no bias) then "<name>.bn". Stem: Conv2d_1a_3x3 (32, /2),
// Conv2d_2a_3x3 (32), Conv2d_2b_3x3 (64, pad 1), max-pool 3/2, Conv2d_3b_1x1 (80),
// Conv2d_4a_3x3 (192), max-pool 3/2; then Mixed_5b..5d (InceptionA), Mixed_6a (B),
// Mixed_6b..6e (C, 7x7 factorised into 1x7 and 7x1), Mixed_7a (D), Mixed_7b..7c (E), adaptive
// average pool, dropout, fc. Branches start from the block's input and are concatenated in
// the order torchvision registers them; pooling branches are 3x3 average pools (stride 1,
// pad 1) or the reduction blocks' 3x3/2 max-pools. The auxiliary classifier
// (torchvision's default, 3,326,696 more parameters, run only in training) is left out: the
// trainer takes one output per model. Inputs of at least 75x75.
#include <functional>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "workloads/layers/layout_builder.h"
#include "workloads/layers/model_families.h"

namespace prunex {

namespace {

using Branch = std::function<void()>;

class Inception {
 public:
  explicit Inception(LayoutBuilder& b) : b_(b) {}

  // BasicConv2d: a k x k conv without bias, then BN.
  void conv(const std::string& name, int64_t out, int kernel, int stride = 1, int pad = 0) {
    b_.conv(name + ".conv", out, kernel, stride, pad, false);
    b_.batch_norm(name + ".bn");
  }
  // 1 x n (wide) or n x 1 (tall) with the "same" padding of the long side.
  void wide(const std::string& name, int64_t out, int n) {
    b_.conv_rect(name + ".conv", out, 1, n, 0, n / 2);
    b_.batch_norm(name + ".bn");
  }
  void tall(const std::string& name, int64_t out, int n) {
    b_.conv_rect(name + ".conv", out, n, 1, n / 2, 0);
    b_.batch_norm(name + ".bn");
  }
  void pool(const std::string& name, int kernel, int stride, int pad) {
    b_.pool(name, kernel, stride, pad);
  }
  // Each branch starts from the current activation; their outputs (all of one side) are
  // concatenated along channels in the order given.
  void block(std::initializer_list<Branch> branches) {
    const ActivationShape in = b_.shape();
    int64_t channels = 0;
    ActivationShape out;
    for (const Branch& branch : branches) {
      b_.set_shape(in);
      branch();
      channels += b_.shape().channels;
      out = b_.shape();
    }
    b_.set_shape(out);
    b_.concat(channels);
  }

 private:
  LayoutBuilder& b_;
};

void inception_a(Inception& n, const std::string& m, int64_t pool_features) {
  n.block({[&] { n.conv(m + ".branch1x1", 64, 1); },
           [&] {
             n.conv(m + ".branch5x5_1", 48, 1);
             n.conv(m + ".branch5x5_2", 64, 5, 1, 2);
           },
           [&] {
             n.conv(m + ".branch3x3dbl_1", 64, 1);
             n.conv(m + ".branch3x3dbl_2", 96, 3, 1, 1);
             n.conv(m + ".branch3x3dbl_3", 96, 3, 1, 1);
           },
           [&] {
             n.pool(m + ".avg_pool", 3, 1, 1);
             n.conv(m + ".branch_pool", pool_features, 1);
           }});
}

void inception_b(Inception& n, const std::string& m) {
  n.block({[&] { n.conv(m + ".branch3x3", 384, 3, 2); },
           [&] {
             n.conv(m + ".branch3x3dbl_1", 64, 1);
             n.conv(m + ".branch3x3dbl_2", 96, 3, 1, 1);
             n.conv(m + ".branch3x3dbl_3", 96, 3, 2);
           },
           [&] { n.pool(m + ".max_pool", 3, 2, 0); }});
}

void inception_c(Inception& n, const std::string& m, int64_t c7) {
  n.block({[&] { n.conv(m + ".branch1x1", 192, 1); },
           [&] {
             n.conv(m + ".branch7x7_1", c7, 1);
             n.wide(m + ".branch7x7_2", c7, 7);
             n.tall(m + ".branch7x7_3", 192, 7);
           },
           [&] {
             n.conv(m + ".branch7x7dbl_1", c7, 1);
             n.tall(m + ".branch7x7dbl_2", c7, 7);
             n.wide(m + ".branch7x7dbl_3", c7, 7);
             n.tall(m + ".branch7x7dbl_4", c7, 7);
             n.wide(m + ".branch7x7dbl_5", 192, 7);
           },
           [&] {
             n.pool(m + ".avg_pool", 3, 1, 1);
             n.conv(m + ".branch_pool", 192, 1);
           }});
}

void inception_d(Inception& n, const std::string& m) {
  n.block({[&] {
             n.conv(m + ".branch3x3_1", 192, 1);
             n.conv(m + ".branch3x3_2", 320, 3, 2);
           },
           [&] {
             n.conv(m + ".branch7x7x3_1", 192, 1);
             n.wide(m + ".branch7x7x3_2", 192, 7);
             n.tall(m + ".branch7x7x3_3", 192, 7);
             n.conv(m + ".branch7x7x3_4", 192, 3, 2);
           },
           [&] { n.pool(m + ".max_pool", 3, 2, 0); }});
}

// InceptionE: each 3x3 branch ends in a 1x3 and a 3x1 conv side by side (384 + 384).
void inception_e(Inception& n, const std::string& m) {
  auto split = [&](const std::string& name) {
    n.block({[&] { n.wide(name + "a", 384, 3); }, [&] { n.tall(name + "b", 384, 3); }});
  };
  n.block({[&] { n.conv(m + ".branch1x1", 320, 1); },
           [&] {
             n.conv(m + ".branch3x3_1", 384, 1);
             split(m + ".branch3x3_2");
           },
           [&] {
             n.conv(m + ".branch3x3dbl_1", 448, 1);
             n.conv(m + ".branch3x3dbl_2", 384, 3, 1, 1);
             split(m + ".branch3x3dbl_3");
           },
           [&] {
             n.pool(m + ".avg_pool", 3, 1, 1);
             n.conv(m + ".branch_pool", 192, 1);
           }});
}

}  // namespace

void build_inception_v3(ModelLayout& layout) {
  LayoutBuilder b(layout);
  Inception n(b);
  n.conv("Conv2d_1a_3x3", 32, 3, 2);
  n.conv("Conv2d_2a_3x3", 32, 3);
  n.conv("Conv2d_2b_3x3", 64, 3, 1, 1);
  n.pool("maxpool1", 3, 2, 0);
  n.conv("Conv2d_3b_1x1", 80, 1);
  n.conv("Conv2d_4a_3x3", 192, 3);
  n.pool("maxpool2", 3, 2, 0);
  inception_a(n, "Mixed_5b", 32);
  inception_a(n, "Mixed_5c", 64);
  inception_a(n, "Mixed_5d", 64);
  inception_b(n, "Mixed_6a");
  for (auto [m, c7] : std::vector<std::pair<std::string, int64_t>>{
           {"Mixed_6b", 128}, {"Mixed_6c", 160}, {"Mixed_6d", 160}, {"Mixed_6e", 192}})
    inception_c(n, m, c7);
  inception_d(n, "Mixed_7a");
  inception_e(n, "Mixed_7b");
  inception_e(n, "Mixed_7c");
  b.adaptive_pool(1);
  b.fc("fc", layout.classes, true);
}

}  // namespace prunex
