#include "engine/cgx_adaptive.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace prunex {

double top_k_norm(const float* x, long n, int k) {
  std::vector<float> a(static_cast<std::size_t>(n));
  for (long i = 0; i < n; ++i) a[i] = std::fabs(x[i]);
  const long m = std::min<long>(k, n);
  std::nth_element(a.begin(), a.begin() + (n - m), a.end());
  double s = 0;
  for (long i = n - m; i < n; ++i) s += static_cast<double>(a[i]) * a[i];
  return std::sqrt(s);
}

std::vector<int> cgx_adaptive_bits(const std::vector<double>& sizes,
                                   const std::vector<double>& norms) {
  const std::size_t n = sizes.size();
  if (n == 0) return {};
  std::vector<double> fx(n), fy(n);
  for (std::size_t i = 0; i < n; ++i) {
    fx[i] = std::log10(std::max(1.0, sizes[i]));
    fy[i] = std::log10(std::max(1e-30, norms[i]));
  }
  auto rescale = [](std::vector<double>& v) {
    const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
    const double a = *lo, span = *hi - *lo;
    for (double& x : v) x = span > 0 ? (x - a) / span : 0.0;
  };
  rescale(fx);
  rescale(fy);
  std::vector<std::size_t> by_norm(n);
  std::iota(by_norm.begin(), by_norm.end(), std::size_t(0));
  std::stable_sort(by_norm.begin(), by_norm.end(),
                   [&](std::size_t a, std::size_t b) { return fy[a] < fy[b]; });
  std::vector<std::size_t> seeds = {by_norm.front(), by_norm[n / 2], by_norm.back()};
  std::vector<std::pair<double, double>> c;
  for (std::size_t s : seeds) {
    const std::pair<double, double> p{fx[s], fy[s]};
    if (std::find(c.begin(), c.end(), p) == c.end()) c.push_back(p);
  }
  const std::size_t k = c.size();
  std::vector<std::size_t> assign(n, k);
  for (int iter = 0; iter < 100; ++iter) {
    bool changed = false;
    for (std::size_t i = 0; i < n; ++i) {
      std::size_t best = 0;
      double bd = 1e300;
      for (std::size_t j = 0; j < k; ++j) {
        const double d = (fx[i] - c[j].first) * (fx[i] - c[j].first) +
                         (fy[i] - c[j].second) * (fy[i] - c[j].second);
        if (d < bd) bd = d, best = j;
      }
      changed |= assign[i] != best;
      assign[i] = best;
    }
    if (!changed) break;
    for (std::size_t j = 0; j < k; ++j) {
      double sx = 0, sy = 0, cnt = 0;
      for (std::size_t i = 0; i < n; ++i)
        if (assign[i] == j) sx += fx[i], sy += fy[i], cnt += 1;
      if (cnt > 0) c[j] = {sx / cnt, sy / cnt};
    }
  }
  // Rank clusters by centroid norm: the highest gets 4 bits, the next 3, the next 2.
  std::vector<std::size_t> order(k);
  std::iota(order.begin(), order.end(), std::size_t(0));
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return c[a].second > c[b].second; });
  std::vector<int> bits_of(k);
  for (std::size_t r = 0; r < k; ++r) bits_of[order[r]] = 4 - static_cast<int>(r);
  std::vector<int> out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = bits_of[assign[i]];
  return out;
}

}  // namespace prunex
