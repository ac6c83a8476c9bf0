// A job's gradient noise scale phi (Pollux, AdaptDL), learned from the gradient
// statistics its launcher reports (protocol::LauncherReport grad_sqr, grad_var, normalised to
// the tuned batch M0): phi = M0 * var / sqr. Pure.
#pragma once

#include <optional>

namespace gaptrain::core {

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

// The learned noise scale a job is valued and told its batch at follows the estimate in steps:
// it moves only when the estimate has drifted more than kNoiseScaleStep (a fifth) from it. The
// estimate moves with every report while the training converges, and each change of the
// adaptive batch is a change of the job's learning rate and a line in its output; a fifth of
// phi moves the chosen batch by at most about as much.
inline constexpr double kNoiseScaleStep = 0.2;
// `current` where `estimate` is within the step of it, else `estimate`.
std::optional<double> stepped_noise_scale(std::optional<double> current,
                                          std::optional<double> estimate);

}  // namespace gaptrain::core
