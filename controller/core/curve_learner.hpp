// Learns an elastic job's scaling curve and rescale costs online from the progress it reports
// (MalleTrain's idea), so the allocator can run jobs nobody profiled. Starts from a conservative
// prior and replaces it with measurements as the job runs on different node counts. Pure.
#pragma once

#include <map>
#include <optional>

#include "gaptrain/scaling_curve.hpp"

namespace gaptrain::core {

// What is assumed of a job nobody profiled, until its progress says otherwise. The daemon's
// elastic jobs (elastic_jobs.hpp) and the simulator's --learn start from these same defaults.
struct LearnerPrior {
  // Scaling exponent assumed until two node counts are measured: S(n) = S(1) * n^alpha.
  // Below the ~0.95 measured DNN curves show, so the allocator does not over-promise.
  double alpha = 0.8;
  // Bounds on the fitted exponent; a jump of the measurements cannot make the model predict
  // super-linear scaling or a collapse.
  double min_alpha = 0.5;
  double max_alpha = 1.0;
  // Rescale costs assumed until one is measured: longer than the 11-19 s BFTrainer measured.
  double up_cost_s = 30.0;
  double down_cost_s = 30.0;
};

class CurveLearner {
 public:
  CurveLearner(int max_nodes, LearnerPrior prior = {});

  // The job processed `samples` in `seconds` of steady training on `nodes` nodes (no rescale
  // in the interval).
  void observe_progress(int nodes, double samples, double seconds);
  // A rescale (grow or start when `grow`, else shrink) stalled training for `stall_s` seconds.
  void observe_rescale(bool grow, double stall_s);

  // The throughput at one node, S(1): measured when the job ran on one node, else extrapolated
  // from the measurements as curve() does; empty before the first
  // progress was seen. Windows without progress are no measurement of throughput (a training
  // may write its progress only at checkpoints): a rate of 0 is "not learned yet", never a
  // learned S(1) of 0, which the speedup objective could not divide by.
  std::optional<double> one_node_rate() const;

  // The curve the allocator is given: measured node counts at their measured rates; the rest
  // (1, 2, 4, ..., max_nodes) between two measured counts on the measured shape (log-log
  // interpolation), outside them on from the nearest measured count at the fitted exponent
  // (extrapolated()); rates capped at bounds::kMaxSamplesPerS. Measured points win over the
  // prior and over the fit: the fit's exponent is bounded, the measurements are not.
  // `fallback_one_node_rate` stands in for S(1) before anything was measured (e.g. the median of
  // the other jobs' estimates).
  // Before anything was measured, with a fallback of 1: the prior's relative curve n^alpha.
  ScalingCurve curve(double fallback_one_node_rate) const;
  double up_cost_s() const;
  double down_cost_s() const;
  int rescales_measured() const { return ups_ + downs_; }
  // The node counts progress was measured on, with their mean rates (samples/s).
  std::map<int, double> measured_rates() const;

 private:
  struct Measured {
    double samples = 0.0;
    double seconds = 0.0;
    double rate() const { return samples / seconds; }
  };
  // The measured counts at which progress was seen.
  std::map<int, Measured> rates_seen() const;
  // The fitted exponent: least squares of log rate on log nodes over the measured counts, each
  // weighted by its measured time; the prior when fewer than two counts were measured.
  double alpha() const;
  // The rate on `nodes` nodes from the measurements `seen` (not empty): measured, interpolated
  // between measured counts, or extrapolated beyond them (the lower of the line through the
  // nearest measured count and the one through the count measured longest).
  double extrapolated(const std::map<int, Measured>& seen, int nodes) const;

  int max_nodes_;
  LearnerPrior prior_;
  std::map<int, Measured> measured_;  // node count -> accumulated steady progress
  double up_stall_s_ = 0.0;
  int ups_ = 0;
  double down_stall_s_ = 0.0;
  int downs_ = 0;
};

}  // namespace gaptrain::core
