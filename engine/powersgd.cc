#include "engine/powersgd.h"

#include <algorithm>

namespace prunex {

PowerSgdBucket powersgd_bucket(const ModelLayout& layout, const DdpBucket& b, int rank,
                               double min_compression_rate) {
  PowerSgdBucket out;
  for (size_t i = 0; i < b.layers.size(); ++i) {
    const LayerInfo& info = layout.layers[static_cast<size_t>(b.layers[i])];
    PowerSgdMatrix m;
    m.layer = b.layers[i];
    m.offset = b.offsets[i];
    m.rows = info.shape.empty() ? 1 : info.shape[0];
    m.cols = info.numel() / std::max<int64_t>(1, m.rows);
    // _should_compress: compressed_size * min_compression_rate < uncompressed_size.
    const int64_t r = std::min<int64_t>({m.rows, m.cols, rank});
    const double compressed = static_cast<double>((m.rows + m.cols) * r);
    if (compressed * min_compression_rate < static_cast<double>(m.rows * m.cols)) {
      m.rank = static_cast<int>(r);
      out.p_floats += m.rows * r;
      out.q_floats += m.cols * r;
      out.flops += 6.0 * static_cast<double>(m.rows * m.cols * r);
    } else {
      out.whole_floats += m.rows * m.cols;
    }
    out.matrices.push_back(m);
  }
  return out;
}

}  // namespace prunex
