// A job's measured throughput as a function of its node count.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace gaptrain {

// Piecewise-linear throughput curve through (0, 0) and measured points (N, O).
//
// The one rule for a curve, whatever text it came from (a registration, --elastic-curve, a
// curves CSV, a problem JSON, the state file) and whatever computed it (the prior, the learner):
// at least one point; node counts strictly increasing from >= 1 up to bounds::kMaxNodes; every
// rate finite, > 0 and at most bounds::kMaxSamplesPerS. A throughput of 0 is no measurement (a
// job that did not report, a training that logs only at checkpoints): such a node count is left
// out, never put in a curve. The constructor throws InputError (field "curve[i]") otherwise.
// Between points the curve is linearly interpolated; beyond the last measured point it stays
// flat, because nothing measured says the job scales further.
class ScalingCurve {
 public:
  struct Point {
    int nodes = 0;
    double samples_per_s = 0.0;

    friend bool operator==(const Point&, const Point&) = default;
  };

  explicit ScalingCurve(std::vector<Point> points);

  // What is wrong with `point` following a point at `previous_nodes` nodes (0 for the first
  // point), as the message the constructor throws; empty when it may follow. For parsers that
  // read a curve point by point and name the point's place (a file's line) themselves.
  static std::optional<std::string> point_problem(int previous_nodes, const Point& point);

  // Throughput on `nodes` nodes (samples/s); 0 for nodes <= 0.
  double at(double nodes) const;

  const std::vector<Point>& points() const noexcept { return points_; }

  friend bool operator==(const ScalingCurve&, const ScalingCurve&) = default;

 private:
  std::vector<Point> points_;
};

}  // namespace gaptrain
