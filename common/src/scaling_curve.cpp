#include "gaptrain/scaling_curve.hpp"

#include <cmath>
#include <string>
#include <utility>

#include "gaptrain/input_error.hpp"

namespace gaptrain {

ScalingCurve::ScalingCurve(std::vector<Point> points) : points_(std::move(points)) {
  if (points_.empty()) throw InputError("curve", "needs at least one [nodes, samples_per_s] point");
  int previous_nodes = 0;
  for (std::size_t i = 0; i < points_.size(); ++i) {
    const Point& p = points_[i];
    const std::string field = "curve[" + std::to_string(i) + "]";
    if (p.nodes < 1)
      throw InputError(field, "node count must be >= 1, got " + std::to_string(p.nodes));
    if (p.nodes <= previous_nodes) {
      throw InputError(field, "node counts must increase, got " + std::to_string(p.nodes) +
                                  " after " + std::to_string(previous_nodes));
    }
    if (!std::isfinite(p.samples_per_s) || p.samples_per_s < 0.0) {
      throw InputError(field, "samples_per_s must be a finite number >= 0");
    }
    previous_nodes = p.nodes;
  }
}

double ScalingCurve::at(double nodes) const {
  if (nodes <= 0.0) return 0.0;
  double x0 = 0.0;
  double y0 = 0.0;
  for (const Point& p : points_) {
    const double x1 = p.nodes;
    if (nodes <= x1) return y0 + (p.samples_per_s - y0) * (nodes - x0) / (x1 - x0);
    x0 = x1;
    y0 = p.samples_per_s;
  }
  return y0;
}

}  // namespace gaptrain
