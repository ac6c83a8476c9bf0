"""The gradient noise scale, estimated from what every step's all-reduce already carries.

With W workers each averaging b samples, the squared norm of a worker's gradient is on average
|G|^2 + tr(S)/b and that of the mean of all W is |G|^2 + tr(S)/(W b) (G the true gradient, S the
per-sample covariance). From one number more in the all-reduce (the sum of the workers' squared
norms) follow unbiased estimates of both (McCandlish et al. 2018; Pollux/AdaptDL use the same):

    sqr = (W |g|^2 - mean |g_i|^2) / (W - 1)            ~ |G|^2
    tr  = b W / (W - 1) * (mean |g_i|^2 - |g|^2)        ~ tr(S)

Each step's estimate is noisy (sqr may even be negative): both are smoothed by an exponential
moving average with bias correction, and the noise scale is phi = tr / sqr, in samples. Reported
as Pollux's validation files hold them: grad_sqr = sqr, grad_var = tr / tuned (the variance at the
tuned batch), so that phi = tuned * grad_var / grad_sqr. One worker gives no estimate.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass
class GradientNoise:
    decay: float = 0.95  # per step: about 20 steps of memory
    _sqr: float = 0.0
    _tr: float = 0.0
    _weight: float = 0.0  # 1 - decay^steps, the bias correction

    def update(self, mean_local_sqnorm: float, global_sqnorm: float, workers: int, local_batch: int) -> None:
        """One step: the mean of the workers' squared gradient norms, the squared norm of their
        mean, the number of workers and each one's samples (equal for all)."""
        if workers < 2 or local_batch < 1:
            return
        sqr = (workers * global_sqnorm - mean_local_sqnorm) / (workers - 1)
        tr = local_batch * workers / (workers - 1) * (mean_local_sqnorm - global_sqnorm)
        self._sqr = self.decay * self._sqr + (1 - self.decay) * sqr
        self._tr = self.decay * self._tr + (1 - self.decay) * tr
        self._weight = self.decay * self._weight + (1 - self.decay)

    @property
    def known(self) -> bool:
        return self._weight > 0 and self._sqr > 0 and self._tr > 0

    @property
    def sqr(self) -> float:
        return self._sqr / self._weight if self._weight else 0.0

    @property
    def trace(self) -> float:
        return self._tr / self._weight if self._weight else 0.0

    @property
    def noise_scale(self) -> float | None:
        """phi = tr(S) / |G|^2 in samples; None before an estimate is positive."""
        return self.trace / self.sqr if self.known else None

    def gain(self, tuned: int, global_batch: int) -> float | None:
        """AdaScale's gain at ``global_batch`` against ``tuned``: (var + sqr) / (var/s + sqr)
        with var the variance at the tuned batch and s = global/tuned; None while unknown."""
        if not self.known:
            return None
        var, s = self.trace / tuned, global_batch / tuned
        return (var + self.sqr) / (var / s + self.sqr)

    def reported(self, tuned: int) -> dict[str, float]:
        """The progress line's grad_sqr and grad_var (normalised to ``tuned``), once known."""
        if not self.known:
            return {}
        return {"grad_sqr": self.sqr, "grad_var": self.trace / tuned}
