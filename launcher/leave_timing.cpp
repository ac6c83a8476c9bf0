#include "leave_timing.hpp"

#include <algorithm>
#include <cmath>

namespace gaptrain::launch {

std::chrono::milliseconds wait_before_term(std::optional<double> deadline_in_s,
                                           std::chrono::milliseconds grace) {
  using std::chrono::milliseconds;
  if (!deadline_in_s || !std::isfinite(*deadline_in_s)) return std::min(kLeaveByItself, grace);
  const auto left = milliseconds(std::llround(std::clamp(*deadline_in_s, 0.0, 3600.0) * 1000.0));
  return std::min(std::max(left - kTermBeforeDeadline, kLeaveByItselfAtLeast), grace);
}

}  // namespace gaptrain::launch
