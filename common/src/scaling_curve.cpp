#include "gaptrain/scaling_curve.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "gaptrain/bounds.hpp"
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
    if (p.nodes > bounds::kMaxNodes) {
      throw InputError(field, "node count must be at most " + std::to_string(bounds::kMaxNodes) +
                                  ", got " + std::to_string(p.nodes));
    }
    if (p.nodes <= previous_nodes) {
      throw InputError(field, "node counts must increase, got " + std::to_string(p.nodes) +
                                  " after " + std::to_string(previous_nodes));
    }
    if (!(p.samples_per_s >= 0.0 && p.samples_per_s <= bounds::kMaxSamplesPerS)) {
      throw InputError(field, "samples_per_s must be a finite number >= 0 and at most 1e15");
    }
    previous_nodes = p.nodes;
  }
}

double ScalingCurve::at(double nodes) const {
  if (nodes <= 0.0) return 0.0;
  // The first point at or beyond `nodes`, by bisection: the allocator asks for every node count
  // of every job, and a measured curve may have a point at each.
  const auto above = std::lower_bound(points_.begin(), points_.end(), nodes,
                                      [](const Point& p, double n) { return p.nodes < n; });
  if (above == points_.end()) return points_.back().samples_per_s;
  const double x0 = above == points_.begin() ? 0.0 : std::prev(above)->nodes;
  const double y0 = above == points_.begin() ? 0.0 : std::prev(above)->samples_per_s;
  return y0 + (above->samples_per_s - y0) * (nodes - x0) / (above->nodes - x0);
}

}  // namespace gaptrain
