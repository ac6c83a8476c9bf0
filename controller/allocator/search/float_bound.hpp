// Bound tables stored as floats (half the memory of doubles) must stay lower bounds.
#pragma once

#include <cmath>
#include <limits>

namespace gaptrain::allocator {

// A bound where there is none (no allocation reaches that state), as the bound tables store it.
inline constexpr double kInfinity = std::numeric_limits<double>::infinity();

// The largest float not above `x`.
inline float float_at_most(double x) {
  const auto f = static_cast<float>(x);
  return static_cast<double>(f) > x ? std::nextafter(f, -std::numeric_limits<float>::infinity())
                                    : f;
}

}  // namespace gaptrain::allocator
