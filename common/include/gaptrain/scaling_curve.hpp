// A job's measured throughput as a function of its node count.
#pragma once

#include <vector>

namespace gaptrain {

// Piecewise-linear throughput curve through (0, 0) and measured points (N, O).
//
// Contract: points are given with node counts strictly increasing from >= 1 and finite,
// non-negative throughputs; the constructor throws InputError (field "curve[i]") otherwise.
// Between points the curve is linearly interpolated; beyond the last measured point it stays
// flat, because nothing measured says the job scales further.
class ScalingCurve {
 public:
  struct Point {
    int nodes = 0;
    double samples_per_s = 0.0;
  };

  explicit ScalingCurve(std::vector<Point> points);

  // Throughput on `nodes` nodes (samples/s); 0 for nodes <= 0.
  double at(double nodes) const;

  const std::vector<Point>& points() const noexcept { return points_; }

 private:
  std::vector<Point> points_;
};

}  // namespace gaptrain
