#include "analysis/report_rows.h"

#include <fmt/format.h>

#include <cmath>

#include "engine/error.h"

namespace prunex {

std::optional<double> ReportRow::rel_error() const {
  if (!paper) return std::nullopt;
  return relative_error(ours, *paper);
}

double relative_error(double ours, double paper) {
  PRUNEX_USAGE(paper != 0, "relative error against a paper value of 0");
  return std::fabs(ours - paper) / std::fabs(paper);
}

nlohmann::json rows_json(const std::vector<ReportRow>& rows) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& r : rows) {
    const auto e = r.rel_error();
    out.push_back({{"figure", r.figure},
                   {"quantity", r.quantity},
                   {"paper", r.paper ? nlohmann::json(*r.paper) : nlohmann::json()},
                   {"ours", r.ours},
                   {"rel_error", e ? nlohmann::json(*e) : nlohmann::json()},
                   {"note", r.note}});
  }
  return out;
}

std::string sig4(double x) {
  if (x == 0) return "0";
  const double a = std::fabs(x);
  if (a >= 1e6 || a < 1e-4) return fmt::format("{:.3e}", x);
  const int digits = std::max(0, 3 - static_cast<int>(std::floor(std::log10(a))));
  return fmt::format("{:.{}f}", x, digits);
}

std::string percent(double fraction, int decimals) {
  return fmt::format("{:.{}f}%", 100.0 * fraction, decimals);
}

std::string rows_markdown(const std::vector<ReportRow>& rows, const std::string& figure) {
  std::string s = "| quantity | paper | ours | rel. error | note |\n|---|---|---|---|---|\n";
  for (const auto& r : rows) {
    if (r.figure != figure) continue;
    const auto e = r.rel_error();
    s += fmt::format("| `{}` | {} | {} | {} | {} |\n", r.quantity, r.paper ? sig4(*r.paper) : "-",
                     sig4(r.ours), e ? percent(*e) : "-", r.note);
  }
  return s;
}

std::string gbs(double bytes_per_s) {
  return sig4(bytes_per_s / 1e9) + " GB/s";
}
std::string ms(double seconds) {
  return sig4(seconds * 1e3) + " ms";
}
std::string mb(double bytes) {
  return sig4(bytes / 1e6) + " MB";
}

}  // namespace prunex
