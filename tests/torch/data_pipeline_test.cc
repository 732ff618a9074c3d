// Sharding, synthetic data, batching and augmentation, each against its definition.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <ATen/CPUGeneratorImpl.h>
#include <algorithm>
#include <set>

#include "engine/error.h"
#include "workloads/data/batches.h"
#include "workloads/data/dataset.h"
#include "workloads/torch/models.h"

namespace prunex {
namespace {

TEST(Sharding, DisjointEqualAndCoveringAllButTheRemainder) {
  const int64_t n = 103;
  Dataset d;
  d.images = torch::arange(n, torch::kFloat32).view({n, 1, 1, 1});
  d.labels = torch::zeros({n}, torch::kInt64);
  for (auto [m, p] : {std::pair{2, 4}, std::pair{1, 1}, std::pair{3, 2}, std::pair{4, 1}}) {
    const int64_t per = n / (m * p);
    std::set<int64_t> seen;
    for (int i = 0; i < m; ++i) {
      for (int j = 0; j < p; ++j) {
        const Dataset s = shard(d, {m, p, i, j});
        ASSERT_EQ(s.size(), per);
        for (int64_t k = 0; k < per; ++k) {
          const int64_t v = s.images[k][0][0][0].item<int64_t>();
          EXPECT_TRUE(seen.insert(v).second) << "sample " << v << " in two shards";
          EXPECT_EQ(v / per, i * p + j) << "shard (i, j) is block i * P + j";
        }
      }
    }
    EXPECT_EQ(int64_t(seen.size()), n - n % (m * p));
    EXPECT_EQ(*seen.rbegin(), n - n % (m * p) - 1);
  }
  EXPECT_THROW(shard(d, {2, 4, 2, 0}), UsageError);
  EXPECT_THROW(shard(d, {2, 4, 0, 4}), UsageError);
  EXPECT_THROW(shard(d, {0, 4, 0, 0}), UsageError);
  EXPECT_THROW(shard(d, {13, 8, 0, 0}), UsageError);  // 104 shards of 103 samples
}

TEST(Synthetic, DeterministicBalancedAndSeedDependent) {
  const Dataset a = make_synthetic(100, 10, 3, 8, 42);
  const Dataset b = make_synthetic(100, 10, 3, 8, 42);
  const Dataset c = make_synthetic(100, 10, 3, 8, 43);
  EXPECT_EQ(a.images.sizes().vec(), (std::vector<int64_t>{100, 3, 8, 8}));
  EXPECT_TRUE(torch::equal(a.images, b.images));
  EXPECT_TRUE(torch::equal(a.labels, b.labels));
  EXPECT_FALSE(torch::equal(a.images, c.images));
  EXPECT_TRUE(torch::equal(torch::bincount(a.labels), torch::full({10}, 10, torch::kInt64)));
  EXPECT_THROW(make_synthetic(0, 10, 3, 8, 1), UsageError);
}

TEST(Synthetic, StreamsShareTheTaskNotTheSamples) {
  // Per-class means over many samples estimate the prototypes (noise std 1, 2000 samples per
  // class: error ~0.02 per pixel); same seed -> same prototypes, other seed -> others.
  auto class_means = [](const Dataset& d) {
    std::vector<torch::Tensor> m;
    for (int k = 0; k < d.classes; ++k)
      m.push_back(d.images.index_select(0, d.labels.eq(k).nonzero().flatten()).mean(0));
    return torch::stack(m);
  };
  const Dataset train = make_synthetic(4000, 2, 1, 6, 9, 0);
  const Dataset test = make_synthetic(4000, 2, 1, 6, 9, 1);
  const Dataset other = make_synthetic(4000, 2, 1, 6, 10, 0);
  EXPECT_FALSE(torch::allclose(train.images.narrow(0, 0, 10), test.images.narrow(0, 0, 10)));
  const double same = (class_means(train) - class_means(test)).abs().max().item<double>();
  const double diff = (class_means(train) - class_means(other)).abs().max().item<double>();
  EXPECT_LT(same, 0.15);
  EXPECT_GT(diff, 0.3);
}

TEST(DatasetSpecs, ShapesAndLoading) {
  EXPECT_THROW(dataset_spec("imagenet"), UsageError);
  const DatasetSpec f = dataset_spec("fashion-mnist");
  EXPECT_EQ(f.channels, 1);
  EXPECT_EQ(f.image_size, 28);
  EXPECT_TRUE(dataset_spec("cifar10").augment);
  DatasetSpec s = dataset_spec("synthetic");
  s.train_samples = 40;
  s.test_samples = 20;
  const Dataset part = load_dataset(s, "", true, {2, 2, 1, 1}, 3);
  const Dataset all = make_synthetic(40, 10, 3, 32, 3, 0);
  EXPECT_EQ(part.size(), 10);
  EXPECT_TRUE(torch::equal(part.images, all.images.narrow(0, 30, 10)));
  EXPECT_EQ(load_dataset(s, "", false, {}, 3).size(), 20);
}

TEST(Synthetic, IsLearnable) {
  // 20 passes of SGD over 512 samples take small_cnn well above chance (10%) on fresh
  // samples of the same task.
  torch::manual_seed(0);
  const Dataset train = make_synthetic(512, 10, 1, 12, 5, /*stream=*/0);
  const Dataset test = make_synthetic(512, 10, 1, 12, 5, /*stream=*/1);
  auto model = make_model("small_cnn", 10, 1);
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.05).momentum(0.9));
  BatchLoader loader(train, {64, true, false, false, 1, {}});
  for (int epoch = 0; epoch < 20; ++epoch) {
    loader.start_epoch(epoch);
    while (auto batch = loader.next()) {
      opt.zero_grad();
      torch::nn::functional::cross_entropy(model->forward(batch->images), batch->labels).backward();
      opt.step();
    }
  }
  model->eval();
  torch::NoGradGuard no_grad;
  const double acc =
      model->forward(test.images).argmax(1).eq(test.labels).to(torch::kFloat).mean().item<double>();
  EXPECT_GT(acc, 0.6);
}

TEST(Batching, EachEpochIsAPermutationFixedBySeedAndEpoch) {
  Dataset d;
  d.images = torch::arange(50, torch::kFloat32).view({50, 1, 1, 1});
  d.labels = torch::arange(50, torch::kInt64);
  auto order_of = [&](uint64_t seed, int64_t epoch, bool drop_last) {
    BatchLoader loader(d, {16, true, drop_last, false, seed, {}});
    EXPECT_EQ(loader.batches_per_epoch(), drop_last ? 3 : 4);
    loader.start_epoch(epoch);
    std::vector<int64_t> order;
    while (auto b = loader.next()) {
      EXPECT_TRUE(torch::equal(b->images.flatten().to(torch::kInt64), b->labels));
      for (int64_t i = 0; i < b->labels.size(0); ++i) order.push_back(b->labels[i].item<int64_t>());
    }
    return order;
  };
  const auto e0 = order_of(7, 0, false);
  std::vector<int64_t> sorted = e0;
  std::sort(sorted.begin(), sorted.end());
  for (int64_t i = 0; i < 50; ++i) EXPECT_EQ(sorted[i], i);
  EXPECT_EQ(order_of(7, 0, false), e0);
  EXPECT_NE(order_of(7, 1, false), e0);
  EXPECT_NE(order_of(8, 0, false), e0);
  EXPECT_EQ(order_of(7, 0, true).size(), 48u);
}

TEST(Augmentation, EveryImageIsAPaddedCropOrItsMirror) {
  const int64_t b = 64, c = 3, h = 6, w = 5, pad = 4;
  const auto images = torch::rand({b, c, h, w}) + 1;  // > 0, unlike the fill values
  const std::vector<float> fill{-1.5f, -2.0f, -2.5f};
  auto gen = at::detail::createCPUGenerator(3);
  const auto out = random_crop_flip(images, pad, fill, gen);
  ASSERT_EQ(out.sizes(), images.sizes());
  int flipped = 0;
  std::set<std::pair<int, int>> offsets;
  for (int64_t i = 0; i < b; ++i) {
    int matches = 0;
    // Brute force: build every candidate pixel by pixel from the definition.
    for (int dy = 0; dy <= 2 * pad; ++dy)
      for (int dx = 0; dx <= 2 * pad; ++dx)
        for (int flip = 0; flip < 2; ++flip) {
          auto cand = torch::empty({c, h, w});
          for (int ch = 0; ch < c; ++ch)
            for (int y = 0; y < h; ++y)
              for (int x = 0; x < w; ++x) {
                const int sx = flip ? (w - 1 - x) : x;
                const int py = y + dy - pad, px = sx + dx - pad;
                cand[ch][y][x] = (py >= 0 && py < h && px >= 0 && px < w)
                                     ? images[i][ch][py][px].item<float>()
                                     : fill[ch];
              }
          if (torch::equal(cand, out[i])) {
            ++matches;
            flipped += flip;
            offsets.insert({dy, dx});
          }
        }
    EXPECT_GE(matches, 1) << "image " << i;
  }
  EXPECT_GT(flipped, 16);
  EXPECT_LT(flipped, 48);
  EXPECT_GT(offsets.size(), 20u);
  const auto norm = cifar10_normalization();
  EXPECT_NEAR(padding_fill(norm)[2], -0.4465 / 0.2616, 1e-6);
}

}  // namespace
}  // namespace prunex
