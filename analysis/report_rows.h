// The rows of `prunex reproduce`'s comparison: one quantity of one figure, the paper's value
// (if the paper states one), ours, the relative error |ours - paper| / |paper| and a note
// saying where a difference comes from. Rendered as report.json (a list of objects) and as
// Markdown tables for REPORT.md.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace prunex {

struct ReportRow {
  std::string figure;    // "Fig. 9", ..., "projection"
  std::string quantity;  // e.g. speedup_64_hsadmm
  std::optional<double> paper;
  double ours = 0;
  std::string note;
  std::optional<double> rel_error() const;
};

// |ours - paper| / |paper|; UsageError if paper is 0.
double relative_error(double ours, double paper);

// [{figure, quantity, paper, ours, rel_error, note}, ...]; paper and rel_error null where the
// paper states nothing.
nlohmann::json rows_json(const std::vector<ReportRow>& rows);

// A Markdown table (quantity | paper | ours | rel. error | note) of the rows of one figure.
std::string rows_markdown(const std::vector<ReportRow>& rows, const std::string& figure);

// Four significant digits, no exponent for ordinary magnitudes ("6.571", "0.02721").
std::string sig4(double x);
// "12.3%".
std::string percent(double fraction, int decimals = 1);
// sig4 with a unit: "3.199 GB/s" (bytes per second), "68.40 ms" (seconds), "116.7 MB" (bytes).
std::string gbs(double bytes_per_s);
std::string ms(double seconds);
std::string mb(double bytes);

}  // namespace prunex
