// Error bands: how far a predicted time may be from the measured one, read off the published
// suite's held-out rows that resemble the prediction (`prunex validate` writes their residuals
// to OUT/residuals.json; validation/residuals.json holds the recorded run's).
//
// A row's residual is r = ln(predicted time / measured time) (a throughput or bus bandwidth
// row: ln(measured / predicted), its time's inverse). Rows resemble a prediction when they
// share its key: training or collective; GPU speed measured on the same model and stack (a
// validate entry's fit point, or `--calibration` with compute) or a preset; one node or more;
// fp32 or reduced precision (tf32, amp); for a training step, also what binds it: compute, or
// the network when its collectives' exposed time is more than half the step. The band is taken
// over the finest of these groupings that holds at least kBandMinRows rows of kBandMinEntries
// entries (the key without precision, then without the node count, then without the speed,
// then the kind alone; for a network-bound step, last, the collectives' rows with the
// network-bound steps').
//
// Over n such residuals sorted r(1) <= ... <= r(n), a band of level L takes r(lo) and r(hi)
// with lo = floor(a (n + 1)), hi = ceil((1 - a)(n + 1)), a = (1 - L) / 2, clamped to [1, n]
// (split-conformal ranks: a new row like them falls inside with probability at least L if
// rows are exchangeable). The measured time then lies in
// [predicted x exp(-r(hi)), predicted x exp(-r(lo))]: the band is stated as those relative
// errors of the prediction, low = exp(-r(hi)) - 1, high = exp(-r(lo)) - 1.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace prunex::sim {

inline constexpr double kBandLevel = 0.8;
inline constexpr int kBandMinRows = 10;
inline constexpr int kBandMinEntries = 5;

struct BandKey {
  bool collective = false;  // a collective's time, not a training step's
  // A training step whose collectives' exposed time is more than half of it.
  bool network_bound = false;
  bool measured_speed = false;     // GPU speed fitted on this model and stack
  bool multi_node = false;         // more than one node
  bool reduced_precision = false;  // tf32 or amp, not fp32
  // "compute-bound training steps at a preset GPU speed on more than one node in fp32";
  // `depth` 0-4: 4 to 1, the binding and how many of the three attributes count (all, no
  // precision, speed alone, none); 0, the kind alone (a network-bound step: with collectives).
  std::string describe(int depth = 4) const;
};

// Above this share of a step, its collectives' exposed time makes it network-bound.
inline constexpr double kNetworkBoundShare = 0.5;

// `key` with what binds the step: the network when its collectives' exposed time is more than
// kNetworkBoundShare of it.
inline BandKey bound_by(BandKey key, double communication_share) {
  key.network_bound = !key.collective && communication_share > kNetworkBoundShare;
  return key;
}

struct Residual {
  std::string entry;  // the suite entry it comes from
  BandKey key;
  double log_ratio = 0;  // ln(predicted time / measured time)
};

struct ErrorBand {
  double level = kBandLevel;
  double low = 0, high = 0;  // relative errors of the prediction: measured / predicted - 1
  int rows = 0, entries = 0;
  std::string where;  // the grouping the rows share (BandKey::describe)
  bool empty() const { return rows == 0; }
  // Whether a row of residual `log_ratio` (ln(predicted / measured time)) lies inside.
  bool holds(double log_ratio) const;
};

// The residuals of validate's held-out rows, and the bands they give.
class BandTable {
 public:
  BandTable() = default;
  explicit BandTable(std::vector<Residual> rows, std::string source = "")
      : rows_(std::move(rows)), source_(std::move(source)) {}
  // A residuals.json (residuals_json's shape); UsageError naming the file and key when it is
  // malformed.
  static BandTable read(const std::string& path);
  // The band of `key`, from rows not of entry `leave_out` (validate's coverage check: each
  // row's band without its own entry). Empty when no grouping holds enough rows.
  ErrorBand band(const BandKey& key, double level = kBandLevel,
                 const std::string& leave_out = "") const;
  const std::vector<Residual>& rows() const { return rows_; }
  const std::string& source() const { return source_; }

 private:
  std::vector<Residual> rows_;
  std::string source_;  // the file read, named in records
};

nlohmann::json residuals_json(const std::vector<Residual>& rows);
// {"level", "low", "high", "rows", "entries", "where", "source"} (null when empty).
nlohmann::json band_json(const ErrorBand& b, const std::string& source);

}  // namespace prunex::sim
