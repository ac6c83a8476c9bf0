// The least concave majorant of a scaling curve, as the lines that bound it: what the upper
// bound (upper_bound.hpp) may assume a job trains at most, whatever node counts it ran on.
#pragma once

#include <utility>
#include <vector>

#include "gaptrain/scaling_curve.hpp"

namespace gaptrain::sim {

// The vertices of the upper convex hull of `points` (x ascending), left to right: Andrew's
// monotone chain, which drops a point on or below the segment between its neighbours. The lower
// hull is the upper hull of the points with y negated.
std::vector<std::pair<double, double>> upper_hull(
    const std::vector<std::pair<double, double>>& points);

// One line of the majorant: samples/s <= intercept + slope * nodes.
struct HullPiece {
  double intercept = 0.0;  // >= 0; the first piece's is 0 (the hull goes through (0, 0))
  double slope = 0.0;      // >= 0, decreasing from piece to piece; the last piece's is 0
};

// Lines whose minimum over them, Ŝ(n) = min_p intercept_p + slope_p * n, is the smallest concave
// function >= curve.at(n) for every n >= 0 (the curve is linear between points, through (0, 0)
// and flat beyond the last point, so Ŝ is the upper hull of those points, flat from the
// highest one on). Because every piece bounds the curve everywhere, a job that trains on n(t)
// nodes during `active` seconds of a period, node-seconds u = ∫ n(t) dt in all, trains at most
// intercept_p * active + slope_p * u samples for every p.
std::vector<HullPiece> concave_hull(const ScalingCurve& curve);

}  // namespace gaptrain::sim
