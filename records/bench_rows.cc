#include "records/bench_rows.h"

#include <cmath>

#include <fmt/format.h>

#include <algorithm>

#include "engine/error.h"

namespace prunex {

double busbw_factor(CollectiveOp op, int n) {
  if (n <= 1) return 1.0;
  if (op == CollectiveOp::allreduce) return 2.0 * (n - 1) / n;
  if (op == CollectiveOp::allgather) return static_cast<double>(n - 1) / n;
  return 1.0;
}

std::string op_text(const BenchRow& r) {
  return r.kernel.empty() ? std::string(collective_op_name(r.op)) : r.kernel;
}

std::string group_text(const BenchRow& r) {
  return r.kernel.empty() ? std::string(group_name(r.group)) : "-";
}

void fill_bandwidth(BenchRow& row, int n) {
  row.ranks = n;
  row.algbw_gbs = row.time_us > 0 ? row.bytes / (row.time_us * 1e-6) / 1e9 : 0.0;
  row.busbw_gbs = row.kernel.empty() ? row.algbw_gbs * busbw_factor(row.op, n) : row.algbw_gbs;
}

BenchRow memory_bench_row(const std::string& op, const std::string& algo, double bytes,
                          double time_us, long wrong) {
  BenchRow r;
  r.kernel = op;
  r.algo = algo;
  r.bytes = static_cast<std::size_t>(bytes);
  r.count = r.bytes / 4;
  r.time_us = time_us;
  r.wrong = wrong;
  fill_bandwidth(r, 1);
  return r;
}

void print_bench_header(std::FILE* f, const std::string& title) {
  fmt::print(f, "# {}\n", title);
  fmt::print(f, "#{:>12} {:>12} {:>8} {:>10} {:>6} {:>13} {:>10} {:>10} {:>8}\n", "size", "count",
             "type", "op", "group", "time", "algbw", "busbw", "#wrong");
  fmt::print(f, "#{:>12} {:>12} {:>8} {:>10} {:>6} {:>13} {:>10} {:>10} {:>8}\n", "(B)",
             "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "");
}

void print_bench_row(std::FILE* f, const BenchRow& r) {
  fmt::print(f, " {:>12} {:>12} {:>8} {:>10} {:>6} {:>13.2f} {:>10.3f} {:>10.3f} {:>8}\n", r.bytes,
             r.count, dtype_name(r.dtype), op_text(r), group_text(r), r.time_us, r.algbw_gbs,
             r.busbw_gbs, r.wrong);
  std::fflush(f);
}

void print_bench_footer(std::FILE* f, const std::vector<BenchRow>& rows) {
  double sum = 0;
  long wrong = 0;
  for (const auto& r : rows) {
    sum += r.busbw_gbs;
    wrong += r.wrong;
  }
  fmt::print(f, "# Out of bounds values : {} {}\n", wrong, wrong == 0 ? "OK" : "FAILED");
  fmt::print(f, "# Avg bus bandwidth    : {:.4f} GB/s\n", rows.empty() ? 0.0 : sum / rows.size());
}

nlohmann::json bench_rows_json(const std::vector<BenchRow>& rows, const nlohmann::json& context) {
  nlohmann::json a = nlohmann::json::array();
  for (const auto& r : rows) {
    nlohmann::json j = {{"op", op_text(r)},         {"group", group_text(r)},
                        {"algo", r.algo},           {"bytes", r.bytes},
                        {"count", r.count},         {"dtype", std::string(dtype_name(r.dtype))},
                        {"time_us", r.time_us},     {"algbw_gbs", r.algbw_gbs},
                        {"busbw_gbs", r.busbw_gbs}, {"wrong", r.wrong},
                        {"ranks", r.ranks}};
    j.update(context);
    a.push_back(std::move(j));
  }
  return a;
}

std::vector<std::size_t> bench_sizes(std::size_t min_bytes, std::size_t max_bytes, double factor) {
  PRUNEX_USAGE(min_bytes > 0, "-b must be positive");
  PRUNEX_USAGE(max_bytes >= min_bytes, "-e (", max_bytes, ") is smaller than -b (", min_bytes, ")");
  PRUNEX_USAGE(factor > 1.0, "-f must be greater than 1, got ", factor);
  // A factor barely above 1 would make a table of millions of rows (and repeat sizes):
  // refused before any work.
  constexpr double kMaxRows = 1000;
  const double rows =
      std::floor(std::log(static_cast<double>(max_bytes) / min_bytes) / std::log(factor) + 1e-9) +
      1;
  PRUNEX_USAGE(rows <= kMaxRows,
               fmt::format("-b {} -e {} -f {} gives {:.0f} sizes, at most {:.0f} (a larger -f)",
                           min_bytes, max_bytes, factor, rows, kMaxRows));
  std::vector<std::size_t> sizes;
  for (double s = static_cast<double>(min_bytes); s <= static_cast<double>(max_bytes) * 1.0000001;
       s *= factor)
    if (sizes.empty() || static_cast<std::size_t>(s) != sizes.back())
      sizes.push_back(static_cast<std::size_t>(s));
  return sizes;
}

double median(std::vector<double> v) {
  PRUNEX_CHECK(!v.empty(), "median of no values");
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double mean(const std::vector<double>& v) {
  PRUNEX_CHECK(!v.empty(), "mean of no values");
  double sum = 0;
  for (double x : v) sum += x;
  return sum / static_cast<double>(v.size());
}

}  // namespace prunex
