#include "allocator/milp/piecewise.hpp"

#include <algorithm>
#include <cmath>

namespace gaptrain::allocator {

namespace {

// Slopes this close (relative) are one line: interpolated curves produce exactly equal slopes
// up to rounding, and merging them keeps the MILP small.
bool same_slope(double a, double b) {
  return std::abs(a - b) <= 1e-12 * std::max({1.0, std::abs(a), std::abs(b)});
}

}  // namespace

std::vector<Piece> rate_pieces(const ClassedJob& job, const JobOnType& on) {
  std::vector<Piece> pieces;
  double previous_slope = 0.0;
  for (int k = 1; k <= job.max_nodes; ++k) {
    const double slope = job.running_rate(on, k) - job.running_rate(on, k - 1);
    if (!pieces.empty() && same_slope(slope, previous_slope)) {
      ++pieces.back().length;
      pieces.back().rise += slope;
      continue;
    }
    pieces.push_back({1, slope, !pieces.empty() && slope > previous_slope});
    previous_slope = slope;
  }
  return pieces;
}

}  // namespace gaptrain::allocator
