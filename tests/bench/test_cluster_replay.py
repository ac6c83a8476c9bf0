"""Units of the cluster replay's pure parts (tests/bench/cluster_replay.py and its modules):
the intervals over repeated passes, the goals of each mode, the job-by-job comparison of two
passes, the report over several passes, the node sample with a home node. No Slurm: passes are
written here as the replay writes them, and Slurm's answers to the node sample are given."""

import json
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import cluster_replay  # noqa: E402
import replay_report  # noqa: E402
from replay_stats import delay_intervals, pass_mean_interval  # noqa: E402


def a_pass(waits, node_seconds=None, elastic_jobs=(), t0=1000.0):
    """A pass as cluster_replay.py's replay writes it: waits {name: (submitted_at, wait_s)}."""
    jobs = []
    for name, (submitted, wait) in waits.items():
        jobs.append({"name": name, "nodes": 1, "limit_min": 1, "run_s": 5.0, "submit_s": submitted,
                     "submitted_at": t0 + submitted, "wait_s": wait,
                     "started_at": None if wait is None else t0 + submitted + wait,
                     "cut": False, "sacct": {"state": "COMPLETED"}})
    return {"pass": "p", "t0": t0, "end": t0 + 100.0, "jobs": jobs,
            "elastic_jobs": [{"job_id": i} for i in elastic_jobs],
            "node_seconds": node_seconds or {"idle": 100.0, "elastic": 0.0, "regular": 50.0,
                                             "span_s": 100.0}}


def shifted(delays, by):
    return {name: d + by for name, d in delays.items()}


NOISE = {f"r{k}": 0.1 * (k % 7) - 0.3 for k in range(40)}


def test_a_constant_delay_over_the_noise_is_found_exactly_with_a_zero_width_interval():
    result = delay_intervals([shifted(NOISE, 3.0)] * 3, [NOISE] * 3)
    for q in ("p50", "p99"):
        assert result[q]["over_noise"]["mean"] == pytest.approx(3.0)
        assert result[q]["over_noise"]["ci95"] == [pytest.approx(3.0), pytest.approx(3.0)]


def test_pass_to_pass_noise_widens_the_interval_around_the_mean():
    # One noise pass where a backfill flip moved a group of jobs by 20 s.
    flipped = NOISE | {f"r{k}": 20.0 for k in range(5)}
    result = delay_intervals([NOISE, NOISE, NOISE], [NOISE, flipped, NOISE])
    over = result["p99"]["over_noise"]
    lo, hi = over["ci95"]
    assert lo < over["mean"] <= hi
    assert hi - lo > 5.0
    assert over["per_pass"][1] < -10.0  # the flipped pass's noise p99 is far above the others


def test_one_pass_gives_a_mean_but_no_interval():
    assert pass_mean_interval([0.9])["ci95"] is None
    several = pass_mean_interval([0.8, 0.9, 1.0])
    assert several["mean"] == pytest.approx(0.9)
    assert several["ci95"][0] <= 0.9 <= several["ci95"][1]
    assert delay_intervals([NOISE], [])["p50"]["elastic"]["ci95"] is None


def values(p50, p99, requeues, refused, share):
    return {"p50_over_noise_s": {"mean": p50, "ci95": None},
            "p99_over_noise_s": {"mean": p99, "ci95": None},
            "requeues": {"mean": requeues}, "grows_refused": {"mean": refused},
            "hole_share": {"mean": share, "ci95": None}}


def test_home_mode_goals_allow_for_the_grace_and_count_refusals_from_24_11_only():
    measured = values(0.4, 1.9, 0, 3, 0.91)
    on_2205 = replay_report.zero_impact_goals(
        measured, {"home_mode": "1", "quick": "1", "slurm": "slurm-wlm 22.05.8"})
    assert on_2205["p50_over_noise_s"]["met"] and on_2205["p99_over_noise_s"]["met"]
    assert on_2205["hole_share"]["met"]  # 0.9 on the quick slice
    assert on_2205["grows_refused"]["met"] is None
    on_2411 = replay_report.zero_impact_goals(
        measured, {"home_mode": "1", "quick": "0", "slurm": "slurm 24.11.1"})
    assert on_2411["grows_refused"]["met"] is False
    assert on_2411["hole_share"]["met"] is False  # 0.92 on the congested slice
    today = replay_report.zero_impact_goals(measured, {"home_mode": "0", "quick": "1"})
    assert not today["p50_over_noise_s"]["met"] and not today["p99_over_noise_s"]["met"]


def test_a_goal_met_on_the_mean_but_not_at_the_intervals_bound_says_so():
    measured = values(0.2, 1.5, 0, 0, 0.95)
    measured["p99_over_noise_s"]["ci95"] = [0.5, 4.0]
    goals = replay_report.zero_impact_goals(measured, {"home_mode": "1"})
    assert goals["p99_over_noise_s"]["met"] is True
    assert goals["p99_over_noise_s"]["met_at_ci95_bound"] is False


def test_compare_finds_the_jobs_that_moved_and_the_backfill_order_flip():
    # r2 (submitted after r1) starts ahead of r1 in pass a only: backfill ordered them apart.
    a = a_pass({"r1": (0.0, 10.0), "r2": (1.0, 0.5), "r3": (2.0, 0.2)})
    b = a_pass({"r1": (0.0, 0.5), "r2": (1.0, 12.0), "r3": (2.0, 0.3)})
    result = replay_report.compare_passes(a, b, threshold_s=1.0)
    assert [r["name"] for r in result["moved"]] == ["r2", "r1"]
    assert result["order_flips"] == 1  # r2: ahead in a, not in b (r1 is never ahead)
    assert result["compared"] == 3


def write_json(path, data):
    path.write_text(json.dumps(data))
    return str(path)


def test_report_over_two_passes_keeps_the_one_pass_fields_and_adds_each_pass(tmp_path):
    names = {f"r{k}": (float(k), 1.0) for k in range(10)}
    baseline = write_json(tmp_path / "baseline.json", a_pass(names))
    holes = {"idle": 10.0, "elastic": 90.0, "regular": 50.0, "span_s": 100.0}
    elastic = [write_json(tmp_path / f"elastic-{k}.json",
                          a_pass({n: (s, w + 0.5 * k) for n, (s, w) in names.items()},
                                 node_seconds=holes, elastic_jobs=[1, 2]))
               for k in (1, 2)]
    noise = [write_json(tmp_path / f"noise-{k}.json", a_pass(names)) for k in (1, 2)]
    logs = []
    for k in (1, 2):
        log = tmp_path / f"elastic-{k}.gaptraind.log"
        log.write_text('gaptraind: time=1001.0 level=info msg="action done" ACTION=grow '
                       'JOB_ID=1 NODES=n1\n'
                       'gaptraind: time=1002.0 level=info msg="action failed" ACTION=grow '
                       'JOB_ID=1 NODES=n2 REASON="satellite allocation of n2 for job 1: Immediate '
                       'execution impossible, insufficient priority (2032)"\n'
                       'gaptraind: time=1003.0 level=info msg="action failed" ACTION=grow '
                       'JOB_ID=1 NODES=n3 REASON="satellite allocation of n3 for job 1: Requested '
                       'nodes are busy (2016)"\n')
        logs.append(str(log))
    out = tmp_path / "results.json"
    args = type("Args", (), {"baseline": baseline, "elastic": elastic, "noise": noise,
                             "log": logs, "lease_s": 300.0, "json": str(out),
                             "setup": json.dumps({"home_mode": "1", "quick": "1",
                                                  "slurm": "slurm 24.11.1"})})
    replay_report.cmd_report(args)
    report = json.loads(out.read_text())
    assert report["start_delay_s"]["p50"] == pytest.approx(0.5)  # the first pass, as before
    assert report["noise_delay_s"]["p50"] == pytest.approx(0.0)
    per_pass_p50 = [p["delay_p50_s"] for p in report["per_pass"]]
    assert per_pass_p50 == [pytest.approx(0.5), pytest.approx(1.0)]
    over = report["over_passes"]
    assert over["passes"] == 2
    assert over["p50_over_noise_s"]["mean"] == pytest.approx(0.75)
    assert over["hole_share"]["mean"] == pytest.approx(0.9)
    # A refusal for priority misses the goal; a race for a node taken meanwhile is no refusal.
    assert report["goals"]["grows_refused"]["value"] == 1 and \
        report["goals"]["grows_refused"]["met"] is False
    assert over["grows_failed"]["mean"] == pytest.approx(2)
    assert report["goals"]["p50_over_noise_s"]["met"] is False  # 0.75 > 0.5


def test_report_refuses_a_noise_pass_count_unlike_the_elastic_one(tmp_path):
    p = write_json(tmp_path / "p.json", a_pass({"r1": (0.0, 1.0)}))
    args = type("Args", (), {"baseline": p, "elastic": [p, p], "noise": [p], "log": None,
                             "lease_s": 300.0, "json": str(tmp_path / "r.json"), "setup": None})
    with pytest.raises(SystemExit, match="one noise pass per elastic pass"):
        replay_report.cmd_report(args)


def test_the_home_nodes_batch_scripts_are_neither_holes_nor_regular_work(monkeypatch):
    answers = {
        "squeue": "home|1|elastic1\nhome|1|elastic2\nsatellites|3|gaptrain:7\nregular|2|r5\n",
        "sinfo": "n1|idle\nn2|alloc\nn3|alloc\nn4|alloc\nn5|alloc\nn6|plnd\nn7|idle*\n",
    }
    monkeypatch.setattr(cluster_replay, "slurm", lambda *argv, **_: answers[argv[0]])
    assert cluster_replay.node_counts() == (3, 3, 2)
