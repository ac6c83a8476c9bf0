"""Statistics of the cluster replay (tests/bench/cluster_replay.py): percentiles, and 95%
intervals over repeated passes by bootstrap. Python 3 standard library only.

Why a two-level bootstrap for the start delays: a pass is one draw of the cluster's run-to-run
noise (a backfill order that flips moves a whole group of jobs at once), and the jobs are one
draw of the workload. With the few passes a run can afford (2-5), resampling passes alone gives
at most a handful of distinct replicates; resampling jobs alone hides the pass-to-pass spread.
So each replicate draws the passes with replacement and then the jobs with replacement (the same
jobs in every pass of the replicate: a job's delays in different passes are not independent),
and recomputes the statistic as the mean over the drawn passes of the percentile over the drawn
jobs. Metrics a pass gives once (a requeue count, a hole share) are resampled over passes only.
The seed is fixed: the same passes give the same interval.
"""

import math
import random

BOOTSTRAP_REPLICATES = 2000
BOOTSTRAP_SEED = 1


def percentile(values, q):
    """Linear interpolation between closest ranks (numpy's default); with n values, p99 is
    within the top two, so on a few dozen jobs p99 is close to the maximum."""
    ordered = sorted(values)
    if not ordered:
        return None
    pos = (len(ordered) - 1) * q / 100.0
    lo = math.floor(pos)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


def rounded(x, digits=3):
    return None if x is None else round(x, digits)


def stats(values):
    return {"count": len(values), "p50": rounded(percentile(values, 50)),
            "p99": rounded(percentile(values, 99)), "max": rounded(max(values) if values else None),
            "min": rounded(min(values) if values else None),
            "mean": rounded(sum(values) / len(values) if values else None)}


def mean(values):
    values = [v for v in values if v is not None]
    return sum(values) / len(values) if values else None


def interval(replicates):
    """The 95% percentile interval of bootstrap replicates (None where a replicate had none)."""
    values = [r for r in replicates if r is not None]
    if not values:
        return None
    return [rounded(percentile(values, 2.5)), rounded(percentile(values, 97.5))]


def pass_mean_interval(per_pass, replicates=BOOTSTRAP_REPLICATES, seed=BOOTSTRAP_SEED):
    """A metric measured once a pass: its mean over the passes and a 95% interval from
    resampling the passes. One pass gives no interval (None)."""
    values = [v for v in per_pass if v is not None]
    result = {"mean": rounded(mean(values)), "ci95": None, "per_pass": per_pass,
              "resampled": "passes"}
    if len(values) >= 2:
        rng = random.Random(seed)
        result["ci95"] = interval(
            mean(rng.choices(values, k=len(values))) for _ in range(replicates))
    return result


def _pass_percentile(delays, jobs, q):
    return percentile([delays[j] for j in jobs if j in delays], q)


def delay_intervals(elastic_passes, noise_passes, quantiles=(50, 99),
                    replicates=BOOTSTRAP_REPLICATES, seed=BOOTSTRAP_SEED):
    """Start-delay percentiles over repeated passes, each with a 95% interval (the two-level
    bootstrap above), and `elastic - noise` with its own interval from the same replicates.

    elastic_passes, noise_passes: one {job name: delay} per pass (noise_passes may be empty).
    Returns {"p50": {"elastic": {...}, "noise": {...}, "over_noise": {...}}, "p99": ...},
    each {"mean", "ci95", "per_pass"}; the mean is over the passes as measured.
    """
    jobs = sorted({j for p in [*elastic_passes, *noise_passes] for j in p})
    groups = {"elastic": elastic_passes, "noise": noise_passes}
    result = {}
    for q in quantiles:
        per_pass = {g: [rounded(_pass_percentile(p, jobs, q)) for p in passes]
                    for g, passes in groups.items()}
        entry = {g: {"mean": rounded(mean(v)), "ci95": None, "per_pass": v}
                 for g, v in per_pass.items() if v}
        if noise_passes:
            over = [None if e is None or n is None else rounded(e - n)
                    for e, n in zip(per_pass["elastic"], per_pass["noise"])]
            entry["over_noise"] = {
                "mean": rounded(None if entry["elastic"]["mean"] is None
                                or entry["noise"]["mean"] is None
                                else entry["elastic"]["mean"] - entry["noise"]["mean"]),
                "ci95": None, "per_pass": over}
        result[f"p{q}"] = entry
    if not jobs or len(elastic_passes) + len(noise_passes) < 2:
        return result
    rng = random.Random(seed)
    draws = {f"p{q}": {"elastic": [], "noise": [], "over_noise": []} for q in quantiles}
    for _ in range(replicates):
        drawn_jobs = rng.choices(jobs, k=len(jobs))
        drawn = {g: rng.choices(passes, k=len(passes)) for g, passes in groups.items() if passes}
        for q in quantiles:
            value = {g: mean([_pass_percentile(p, drawn_jobs, q) for p in passes])
                     for g, passes in drawn.items()}
            d = draws[f"p{q}"]
            d["elastic"].append(value["elastic"])
            if noise_passes:
                d["noise"].append(value["noise"])
                d["over_noise"].append(None if value["elastic"] is None or value["noise"] is None
                                       else value["elastic"] - value["noise"])
    for key, entry in result.items():
        for group, values in entry.items():
            values["ci95"] = interval(draws[key][group])
            values["resampled"] = "passes and jobs"
    return result
