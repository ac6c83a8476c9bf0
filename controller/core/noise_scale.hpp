// A job's gradient noise scale phi (Pollux, AdaptDL: issue 30), learned from the gradient
// statistics its launcher reports (protocol::LauncherReport grad_sqr, grad_var, normalised to
// the tuned batch M0): phi = M0 * var / sqr. Pure.
#pragma once

#include <optional>

namespace gaptrain::daemon {

class NoiseScaleLearner {
 public:
  // Folds one report's statistics into the smoothed means. A report that cannot be an estimate
  // (sqr <= 0, var < 0, either not finite) changes nothing: false.
  bool observe(double grad_sqr, double grad_var);

  // M0 * var / sqr over the smoothed means; empty before the first estimate.
  std::optional<double> noise_scale(int tuned) const;

 private:
  // The training's statistics are already smoothed over its steps (AdaptDL's bias-corrected
  // EMA); reports come every poll, so this only steadies the value against the last few lines.
  static constexpr double kWeight = 0.2;
  std::optional<double> sqr_;
  double var_ = 0.0;
};

}  // namespace gaptrain::daemon
