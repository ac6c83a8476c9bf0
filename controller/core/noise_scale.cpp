#include "core/noise_scale.hpp"

#include <cmath>

#include "gaptrain/protocol.hpp"

namespace gaptrain::core {

bool NoiseScaleLearner::observe(double grad_sqr, double grad_var) {
  if (!std::isfinite(grad_sqr) || !std::isfinite(grad_var) || grad_sqr <= 0.0 || grad_var < 0.0) {
    return false;
  }
  if (!sqr_) {
    sqr_ = grad_sqr;
    var_ = grad_var;
    return true;
  }
  *sqr_ += kWeight * (grad_sqr - *sqr_);
  var_ += kWeight * (grad_var - var_);
  return true;
}

std::optional<double> NoiseScaleLearner::noise_scale(int tuned) const {
  if (!sqr_) return std::nullopt;
  const double phi = static_cast<double>(tuned) * var_ / *sqr_;
  // Past any real job's noise (a gradient of almost no signal): held at the largest the
  // registration accepts, so that it is still a value the allocator takes.
  if (!std::isfinite(phi) || phi > protocol::kMaxNoiseScale) return protocol::kMaxNoiseScale;
  return phi;
}

std::optional<double> stepped_noise_scale(std::optional<double> current,
                                          std::optional<double> estimate) {
  if (!current || !estimate) return estimate ? estimate : current;
  return std::abs(*estimate - *current) > kNoiseScaleStep * *current ? estimate : current;
}

}  // namespace gaptrain::core
