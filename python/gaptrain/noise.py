"""The gradient noise scale, estimated from what every step's all-reduce already carries.

With W workers each averaging b samples, the squared norm of a worker's gradient is on average
|G|^2 + tr(S)/b and that of the mean of all W is |G|^2 + tr(S)/(W b) (G the true gradient, S the
per-sample covariance). From one number more in the all-reduce (the sum of the workers' squared
norms) follow unbiased estimates of both (McCandlish et al. 2018; Pollux/AdaptDL use the same):

    sqr = (W |g|^2 - mean |g_i|^2) / (W - 1)            ~ |G|^2
    tr  = b W / (W - 1) * (mean |g_i|^2 - |g|^2)        ~ tr(S)

A step's sqr has a standard deviation of the order of tr / (W b): early in training far below |G|^2,
near convergence far above it (|G|^2 falls, tr does not), so that any fixed memory is wrong at
one end. An exponential average over ~20 steps reported 4,514 against 1,122 computed offline;
on a recorded run (python/tests/data/digits-gradients.csv.gz) it swung from 7x too low to 5x too
high, or had none. Instead the noise scale is phi = sum(tr) / sum(sqr) over the shortest window of
recent steps (at least ``shortest``) whose mean sqr is ``confidence`` standard errors above zero
(the standard error from the window's own scatter of sqr): a few dozen steps while |G|^2 is
large, so that a changing phi is followed, thousands near convergence, where phi changes slowly.
sum(sqr) is then known to within 1/confidence, and so is phi up to the noise of the trace, which
is small. No estimate where no window up to ``longest`` steps has one, or where the window's
older half holds a significantly larger |G|^2 than its newer half: a phi that rose within the
window (a fast descent) would be underestimated. One worker gives no estimate.

Reported as Pollux's validation files hold them: grad_sqr = sqr, grad_var = tr / tuned (the
variance at the tuned batch), so that phi = tuned * grad_var / grad_sqr.
"""
from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field


@dataclass
class _Block:
    """Sums over consecutive steps: kept per block, so that a window costs longest/block terms."""
    steps: int = 0
    sqr: float = 0.0
    sqr2: float = 0.0
    tr: float = 0.0

    def add(self, other: _Block) -> None:
        self.steps += other.steps
        self.sqr += other.sqr
        self.sqr2 += other.sqr2
        self.tr += other.tr

    def mean_and_error(self) -> tuple[float, float]:
        """The mean sqr and its standard error (the steps as independent, which their noise is)."""
        mean = self.sqr / self.steps
        var = max(self.sqr2 - self.steps * mean * mean, 0.0) / (self.steps - 1)
        return mean, math.sqrt(var / self.steps)


@dataclass
class GradientNoise:
    confidence: float = 4.0  # the window's mean sqr in standard errors: phi within ~25%
    shortest: int = 20  # steps: fewer give too uncertain a standard error and halves
    longest: int = 4096
    block: int = 16
    _blocks: deque[_Block] = field(default_factory=deque, repr=False)
    _open: _Block = field(default_factory=_Block, repr=False)
    _window: _Block | None = field(default=None, repr=False)  # the estimate's, None without one
    _stale: bool = field(default=False, repr=False)

    def update(self, mean_local_sqnorm: float, global_sqnorm: float, workers: int, local_batch: int) -> None:
        """One step: the mean of the workers' squared gradient norms, the squared norm of their
        mean, the number of workers and each one's samples (equal for all)."""
        if workers < 2 or local_batch < 1:
            return
        sqr = (workers * global_sqnorm - mean_local_sqnorm) / (workers - 1)
        tr = local_batch * workers / (workers - 1) * (mean_local_sqnorm - global_sqnorm)
        self._open.add(_Block(1, sqr, sqr * sqr, tr))
        if self._open.steps == self.block:
            self._blocks.append(self._open)
            self._open = _Block()
            while (len(self._blocks) + 1) * self.block > self.longest:  # the open block's too
                self._blocks.popleft()
        self._stale = True

    def _estimate(self) -> _Block | None:
        if self._stale:
            self._window, self._stale = self._search(), False
        return self._window

    def _search(self) -> _Block | None:
        """The shortest window, newest steps first, whose sqr is known; None if there is none or
        if the window's halves disagree."""
        window = _Block()
        ends: list[_Block] = []  # the window's sums at each block boundary, from the newest
        for part in [self._open, *reversed(self._blocks)]:
            if not part.steps:
                continue
            window.add(part)
            ends.append(_Block(window.steps, window.sqr, window.sqr2, window.tr))
            if window.steps < max(self.shortest, 2):
                continue
            mean, error = window.mean_and_error()
            if mean <= self.confidence * error or window.tr <= 0:
                continue
            newer = next(end for end in ends if 2 * end.steps >= window.steps)
            older = _Block(window.steps - newer.steps, window.sqr - newer.sqr, window.sqr2 - newer.sqr2)
            if older.steps >= 2 and newer.steps >= 2:
                (old, old_error), (new, new_error) = older.mean_and_error(), newer.mean_and_error()
                # 3 standard errors: the test is made at every window, and a false alarm costs
                # an estimate only.
                if old - new > 3 * math.hypot(old_error, new_error):
                    return None
            return window
        return None

    @property
    def known(self) -> bool:
        return self._estimate() is not None

    @property
    def sqr(self) -> float:
        window = self._estimate()
        return window.sqr / window.steps if window else 0.0

    @property
    def trace(self) -> float:
        window = self._estimate()
        return window.tr / window.steps if window else 0.0

    @property
    def noise_scale(self) -> float | None:
        """phi = tr(S) / |G|^2 in samples; None while the steps cannot tell it."""
        window = self._estimate()
        return window.tr / window.sqr if window else None

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
