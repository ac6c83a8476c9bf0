"""The cluster replay's report (tests/bench/cluster_replay.py `report` and `compare`): a
baseline pass against one or more elastic passes and as many noise passes (regular jobs only),
the goals, the table. Python 3 standard library only.

One run of scripts/bench-cluster is the baseline pass, then K elastic passes, each followed by a
noise pass (--passes K), every pass on a fresh cluster. A regular job's start delay in a pass is
its wait there minus its wait in the baseline; the noise passes' delays are the cluster's own
run-to-run noise, which the elastic passes' must be read against. The report's single-pass
fields describe the first elastic and noise pass (so that a one-pass run reads as before);
`per_pass` has every pass and `over_passes` each metric's mean with its 95% interval
(replay_stats.py says how and why).
"""

import json
import re

from gaptraind_log import log_summary
from replay_stats import delay_intervals, pass_mean_interval, percentile, stats


def failed_jobs(pass_result):
    """Regular jobs that ended other than COMPLETED; jobs we cut at the deadline are not
    failures of the system under test and are counted apart."""
    return [j["name"] for j in pass_result["jobs"]
            if not j["cut"] and j["sacct"].get("state") != "COMPLETED"]


def hole_usage(node_seconds):
    used = node_seconds["elastic"]
    holes = node_seconds["elastic"] + node_seconds["idle"]
    return {"elastic_node_s": used, "idle_node_s": node_seconds["idle"],
            "hole_node_s": round(holes, 1),
            "elastic_fraction": round(used / holes, 4) if holes > 0 else None}


def start_delays(baseline, elastic):
    """Per regular job started in the baseline pass: wait(elastic) - wait(baseline), and the
    names of the jobs that never started in the elastic pass. Those must not drop out of the
    statistics (they are the worst delays): their delay is the lower bound their pending time
    gives, so the percentiles are then lower bounds too."""
    base_wait = {j["name"]: j["wait_s"] for j in baseline["jobs"] if j["wait_s"] is not None}
    delays, never_started = {}, []
    for j in elastic["jobs"]:
        if j["name"] not in base_wait:
            continue
        wait = j["wait_s"]
        if wait is None and "wait_at_least_s" in j:
            wait = j["wait_at_least_s"]
            never_started.append(j["name"])
        if wait is not None:
            delays[j["name"]] = round(wait - base_wait[j["name"]], 3)
    return delays, never_started


# ---------------------------------------------------------------------------------------------
# Goals: the regular jobs' start delay at most the noise's plus these, no elastic job requeued,
# no grow refused by Slurm for priority, the elastic jobs holding this share of the hole node-seconds.
# Today's mode (batch scripts on compute nodes): the first targets. The home mode (batch scripts
# on a home node, every training node a preemptable satellite): what Slurm's grace costs a
# regular job is allowed for; the congested slice's share at least twice today's 0.46; grows
# refused only from Slurm 24.11 (22.05-24.05 refuse a satellite while a higher-priority job
# pends: docs/admin.md).

GOALS_TODAY = {"p50_over_noise_s": 0.1, "p99_over_noise_s": 1.0, "hole_share": 0.95}
GOALS_HOME = {"p50_over_noise_s": 0.5, "p99_over_noise_s": 2.0, "hole_share": 0.92,
              "hole_share_quick": 0.9}
GROWS_REFUSED_GOAL_FROM = (24, 11)


def slurm_release(text):
    """(major, minor) of a `sinfo --version` line such as `slurm-wlm 22.05.8`, or None."""
    m = re.search(r"(\d+)\.(\d+)", text or "")
    return (int(m.group(1)), int(m.group(2))) if m else None


def goal_set(setup):
    home = str(setup.get("home_mode", "0")) == "1"
    if not home:
        return "today's mode", dict(GOALS_TODAY), True
    goals = dict(GOALS_HOME)
    if str(setup.get("quick", "0")) == "1":
        goals["hole_share"] = goals["hole_share_quick"]
    release = slurm_release(setup.get("slurm"))
    refusals_are_goal = release is None or release >= GROWS_REFUSED_GOAL_FROM
    return "the home mode", goals, refusals_are_goal


def _goal(value, goal, at_most=True, ci95=None):
    if value is None:
        return {"value": None, "goal": goal, "met": False}
    met = value <= goal if at_most else value >= goal
    result = {"value": value, "goal": goal, "met": met}
    if ci95:
        # The interval's unfavourable end meets the goal too: met beyond the noise of the passes.
        result["ci95"] = ci95
        result["met_at_ci95_bound"] = ci95[1] <= goal if at_most else ci95[0] >= goal
    return result


def zero_impact_goals(values, setup):
    """Each goal with its measured value (means over the passes), its interval where the
    passes give one, and whether it is met. values: p50/p99 over the noise, requeues, grows
    refused, hole share, each {"mean", "ci95"}."""
    mode, goals, refusals_are_goal = goal_set(setup or {})
    refused = values["grows_refused"]
    result = {
        "mode": mode,
        "p50_over_noise_s": _goal(values["p50_over_noise_s"]["mean"], goals["p50_over_noise_s"],
                                  ci95=values["p50_over_noise_s"].get("ci95")),
        "p99_over_noise_s": _goal(values["p99_over_noise_s"]["mean"], goals["p99_over_noise_s"],
                                  ci95=values["p99_over_noise_s"].get("ci95")),
        "elastic_jobs_requeued": _goal(values["requeues"]["mean"], 0),
        "grows_refused": (_goal(refused["mean"], 0) if refusals_are_goal else
                          {"value": refused["mean"], "goal": "none before Slurm 24.11",
                           "met": None}),
        "hole_share": _goal(values["hole_share"]["mean"], goals["hole_share"], at_most=False,
                            ci95=values["hole_share"].get("ci95")),
    }
    return result


# ---------------------------------------------------------------------------------------------
# One elastic pass (and its noise pass) against the baseline.

def pass_load(pass_result):
    """The 5-minute load average at the end of a pass (None for passes without it)."""
    load = pass_result.get("load")
    return load["end"][1] if load else None


def pass_metrics(baseline, elastic, noise=None, log=None):
    """What one elastic pass (and the noise pass after it) measured, one number a metric."""
    delays, never = start_delays(baseline, elastic)
    daemon = log_summary(log) if log else None
    actions = daemon["actions"] if daemon else {}
    result = {
        "delay_p50_s": stats(list(delays.values()))["p50"],
        "delay_p99_s": stats(list(delays.values()))["p99"],
        "never_started": len(never),
        "failed": len(failed_jobs(elastic)),
        "hole_share": hole_usage(elastic["node_seconds"])["elastic_fraction"],
        "requeues": actions.get("requeue done", 0) + actions.get("requeue failed", 0),
        "grows_refused": daemon["grows_refused_for_priority"] if daemon else 0,
        "grows_failed": actions.get("grow failed", 0),
        "grows_done": actions.get("grow done", 0),
        "preempted": actions.get("preempted", 0),
        "wall_s": round(elastic["end"] - elastic["t0"], 1),
        "load_5min": pass_load(elastic),
    }
    if noise:
        noise_delays, noise_never = start_delays(baseline, noise)
        result |= {"noise_p50_s": stats(list(noise_delays.values()))["p50"],
                   "noise_p99_s": stats(list(noise_delays.values()))["p99"],
                   "noise_never_started": len(noise_never),
                   "noise_wall_s": round(noise["end"] - noise["t0"], 1),
                   "noise_load_5min": pass_load(noise)}
    return result, delays, (noise_delays if noise else None)


def single_pass_report(baseline, elastic, noise, log, lease_s, setup):
    """The fields of a one-pass report (the first elastic and noise pass of a run)."""
    delays, never_started = start_delays(baseline, elastic)
    waits_b = [j["wait_s"] for j in baseline["jobs"] if j["wait_s"] is not None]
    waits_e = [j["wait_s"] for j in elastic["jobs"] if j["wait_s"] is not None]
    report = {
        "setup": setup,
        "regular_jobs": len(baseline["jobs"]),
        "start_delay_s": stats(list(delays.values())) | {
            "delayed_more_than_lease": sum(1 for d in delays.values() if d > lease_s),
            "lease_s": lease_s, "target_p99_s": 5.0,
            "compared": len(delays),
            # Jobs that never started in the elastic pass (cancelled at the deadline): their
            # delays are lower bounds, and so are the percentiles when this is not 0.
            "never_started": len(never_started)},
        "never_started": {"baseline": [j["name"] for j in baseline["jobs"] if j["wait_s"] is None],
                          "elastic": never_started},
        "worst_delays": sorted(delays.items(), key=lambda kv: -kv[1])[:5],
        "wait_s": {"baseline": stats(waits_b), "elastic": stats(waits_e)},
        "failed": {"baseline": failed_jobs(baseline), "elastic": failed_jobs(elastic)},
        "cut_at_deadline": {"baseline": sum(j["cut"] for j in baseline["jobs"]),
                            "elastic": sum(j["cut"] for j in elastic["jobs"])},
        "holes": {"baseline": hole_usage(baseline["node_seconds"]),
                  "elastic": hole_usage(elastic["node_seconds"])},
        # The elastic node-seconds against the holes the same workload left without elastic
        # jobs: near 1 means the holes were filled; above 1, elastic jobs held nodes that
        # regular jobs would have used (the start delays say whether that cost anything).
        "elastic_vs_baseline_idle": (
            round(elastic["node_seconds"]["elastic"] / baseline["node_seconds"]["idle"], 4)
            if baseline["node_seconds"]["idle"] > 0 else None),
        "node_seconds": {"baseline": baseline["node_seconds"],
                         "elastic": elastic["node_seconds"]},
        "daemon": log_summary(log) if log else None,
        "pass_wall_s": {"baseline": round(baseline["end"] - baseline["t0"], 1),
                        "elastic": round(elastic["end"] - elastic["t0"], 1)},
    }
    # Two passes without elastic jobs (--elastic-jobs 0): the "delays" are the cluster's own
    # run-to-run noise, the floor any elastic-pass delay must be read against.
    report["a_a"] = not elastic["elastic_jobs"]
    report["daemon_resized"] = bool(report["daemon"] and any(
        k.endswith(" done") and not k.startswith("lease") for k in report["daemon"]["actions"]))
    if noise:
        noise_delays, noise_never = start_delays(baseline, noise)
        report["noise_delay_s"] = stats(list(noise_delays.values())) | {
            "never_started": len(noise_never)}
        report["holes"]["noise"] = hole_usage(noise["node_seconds"])
        report["pass_wall_s"]["noise"] = round(noise["end"] - noise["t0"], 1)
    return report


def over_passes(per_pass, elastic_delays, noise_delays):
    """Every metric as its mean over the passes with a 95% interval."""
    delay = delay_intervals(elastic_delays, noise_delays)
    result = {"passes": len(per_pass),
              "delay_p50_s": delay["p50"]["elastic"], "delay_p99_s": delay["p99"]["elastic"]}
    if noise_delays:
        result |= {"noise_p50_s": delay["p50"]["noise"], "noise_p99_s": delay["p99"]["noise"],
                   "p50_over_noise_s": delay["p50"]["over_noise"],
                   "p99_over_noise_s": delay["p99"]["over_noise"]}
    for key in ("hole_share", "requeues", "grows_refused", "grows_failed", "grows_done", "preempted",
                "never_started", "failed", "load_5min", "noise_load_5min"):
        if key in per_pass[0]:
            result[key] = pass_mean_interval([p[key] for p in per_pass])
    return result


def load(path):
    with open(path) as f:
        return json.load(f)


def cmd_report(args):
    baseline = load(args.baseline)
    elastic = [load(p) for p in args.elastic]
    noise = [load(p) for p in args.noise or []]
    logs = args.log or []
    if noise and len(noise) != len(elastic):
        raise SystemExit(f"cluster_replay report: {len(elastic)} elastic passes but "
                         f"{len(noise)} noise passes: give one noise pass per elastic pass")
    if logs and len(logs) != len(elastic):
        raise SystemExit(f"cluster_replay report: {len(elastic)} elastic passes but "
                         f"{len(logs)} gaptraind logs: give one --log per elastic pass")
    setup = json.loads(args.setup) if args.setup else None
    report = single_pass_report(baseline, elastic[0], noise[0] if noise else None,
                                logs[0] if logs else None, args.lease_s, setup)
    per_pass, elastic_delays, noise_delays = [], [], []
    for k, e in enumerate(elastic):
        metrics, delays, n_delays = pass_metrics(baseline, e, noise[k] if noise else None,
                                                 logs[k] if logs else None)
        per_pass.append(metrics)
        elastic_delays.append(delays)
        if n_delays is not None:
            noise_delays.append(n_delays)
    report["per_pass"] = per_pass
    report["over_passes"] = over_passes(per_pass, elastic_delays, noise_delays)
    report["goals"] = (zero_impact_goals(report["over_passes"], setup)
                       if noise and logs else None)
    with open(args.json, "w") as f:
        json.dump(report, f, indent=1)
    print(format_table(report))


# ---------------------------------------------------------------------------------------------
# The table.

def fmt(x, unit=""):
    return "-" if x is None else f"{x:.2f}{unit}" if isinstance(x, float) else f"{x}{unit}"


def fmt_interval(m):
    """`mean [lo, hi]`, or the mean alone where one pass gives no interval."""
    if not m or m.get("mean") is None:
        return "-"
    if not m.get("ci95"):
        return fmt(float(m["mean"]))
    lo, hi = m["ci95"]
    return f"{m['mean']:.2f} [{lo:.2f}, {hi:.2f}]"


def format_over_passes(r):
    o = r["over_passes"]
    lines = ["", f"over {o['passes']} elastic pass(es), each beside its own noise pass: mean "
             "[95% interval; start delays: bootstrap over passes and jobs, the rest over passes]",
             "", "| metric | mean [95% interval] | per pass |", "|---|---|---|"]
    labelled = [("delay_p50_s", "start delay p50, s"), ("delay_p99_s", "start delay p99, s"),
                ("noise_p50_s", "noise p50, s"), ("noise_p99_s", "noise p99, s"),
                ("p50_over_noise_s", "p50 over the noise, s"),
                ("p99_over_noise_s", "p99 over the noise, s"),
                ("requeues", "elastic jobs requeued"),
                ("grows_refused", "grows refused for priority"),
                ("grows_failed", "grows failed (any reason: a race for the node too)"),
                ("grows_done", "grows done"), ("preempted", "satellites preempted"),
                ("hole_share", "elastic share of hole node-s"),
                ("never_started", "never started"), ("failed", "failed"),
                ("load_5min", "load average (5 min) at the elastic pass's end"),
                ("noise_load_5min", "load average (5 min) at the noise pass's end")]
    for key, label in labelled:
        if key in o:
            per = ", ".join(fmt(v) for v in o[key]["per_pass"])
            lines.append(f"| {label} | {fmt_interval(o[key])} | {per} |")
    return lines


def format_table(r):
    d = r["start_delay_s"]
    he, hb = r["holes"]["elastic"], r["holes"]["baseline"]
    lines = [
        f"regular jobs: {r['regular_jobs']} (compared {d['compared']}); "
        f"pass wall time: baseline {r['pass_wall_s']['baseline']} s, "
        f"elastic {r['pass_wall_s']['elastic']} s",
        "",
        "first elastic pass:",
        "| metric | p50 | p99 | max | n |",
        "|---|---:|---:|---:|---:|",
        f"| start delay (elastic - baseline wait), s | {fmt(d['p50'])} | {fmt(d['p99'])} "
        f"| {fmt(d['max'])} | {d['count']} |",
    ]
    if r.get("noise_delay_s"):
        n = r["noise_delay_s"]
        lines.append(f"| noise: start delay without elastic jobs (noise - baseline wait), s "
                     f"| {fmt(n['p50'])} | {fmt(n['p99'])} | {fmt(n['max'])} | {n['count']} |")
    for name in ("baseline", "elastic"):
        w = r["wait_s"][name]
        lines.append(f"| wait, {name} pass, s | {fmt(w['p50'])} | {fmt(w['p99'])} "
                     f"| {fmt(w['max'])} | {w['count']} |")
    if r["daemon"]:
        g, c = r["daemon"]["grow_latency_s"], r["daemon"]["reclaim_release_latency_s"]
        lines += [
            f"| hole opened -> grow done, s | {fmt(g['p50'])} | {fmt(g['p99'])} "
            f"| {fmt(g['max'])} | {g['count']} |",
            f"| reclaim needed -> released, s | {fmt(c['p50'])} | {fmt(c['p99'])} "
            f"| {fmt(c['max'])} | {c['count']} |",
        ]
        for key, label in (("before_taking_s", "notice -> reclaimed node released, s"),
                           ("before_drain_s", "notice -> its drain requested, s")):
            n = r["daemon"].get("notice", {}).get(key)
            if n:
                lines.append(f"| {label} (min {fmt(n['min'])}) | {fmt(n['p50'])} "
                             f"| {fmt(n['p99'])} | {fmt(n['max'])} | {n['count']} |")
    if d["p99"] is None:
        verdict = "no data"
    elif d["p99"] <= d["target_p99_s"] and d["never_started"] == 0:
        verdict = "met"
    else:
        verdict = "NOT met"
    lines += [
        "",
        f"start delay min {fmt(d['min'])} s (run-to-run noise shows as negative delays); "
        f"target p99 <= {d['target_p99_s']} s: {verdict}",
        f"delayed by more than one lease ({d['lease_s']:.0f} s): {d['delayed_more_than_lease']}",
        f"failed (not COMPLETED): baseline {len(r['failed']['baseline'])}, "
        f"elastic {len(r['failed']['elastic'])}; cut at the deadline: baseline "
        f"{r['cut_at_deadline']['baseline']}, elastic {r['cut_at_deadline']['elastic']}; "
        f"never started: baseline {len(r['never_started']['baseline'])}, elastic "
        f"{d['never_started']} (their delays count as lower bounds)",
        f"holes, elastic pass: elastic {he['elastic_node_s']} node-s, idle {he['idle_node_s']} "
        f"node-s, elastic share of hole node-s {fmt(he['elastic_fraction'])}",
        f"holes, baseline pass: idle {hb['idle_node_s']} node-s; elastic node-s / baseline "
        f"idle node-s: {fmt(r['elastic_vs_baseline_idle'])}",
    ]
    if r["daemon"]:
        lines.append(f"gaptraind actions: {r['daemon']['actions'] or 'none'}; reclaims needed: "
                     f"{r['daemon']['reclaims_needed']}, never released: "
                     f"{r['daemon']['reclaim_release_latency_s']['unreleased']}")
        jitter = float((r.get("setup") or {}).get("jitter_s", 0) or 0)
        if r.get("a_a") and jitter > 0:
            lines.append(f"NOTE: no elastic jobs in the second pass, its submissions up to "
                         f"{jitter:g} s later: the delays above are how much the schedule "
                         "amplifies that perturbation")
        elif r.get("a_a"):
            lines.append("NOTE: no elastic jobs in the second pass: the delays above are the "
                         "run-to-run noise of the cluster")
        elif not r["daemon_resized"]:
            lines.append("NOTE: gaptraind did no resize in the elastic pass")
    if r.get("over_passes"):
        lines += format_over_passes(r)
    g = r.get("goals")
    if g:
        shown = []
        for name, goal in g.items():
            if name == "mode":
                continue
            verdict = "-" if goal["met"] is None else "met" if goal["met"] else "NOT met"
            if goal.get("met_at_ci95_bound") is False and goal["met"]:
                verdict += " (not at the interval's bound)"
            shown.append(f"{name.replace('_', ' ')} {fmt(goal['value'])} "
                         f"(goal {goal['goal']}): {verdict}")
        lines.append(f"zero impact, goals of {g['mode']}, against the noise passes: "
                     + "; ".join(shown))
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# Two passes of the same plan, job by job: which jobs moved, and whether backfill started them
# ahead of an earlier submission in one pass and not in the other (an order flip).

def overtaken(pass_result):
    """Per job started: whether it started before a job submitted earlier that started later
    (backfill put it ahead)."""
    started = [j for j in pass_result["jobs"] if j["started_at"] is not None]
    ahead = {}
    for j in started:
        ahead[j["name"]] = any(k["submitted_at"] < j["submitted_at"] and
                               k["started_at"] > j["started_at"] for k in started)
    return ahead


def compare_passes(a, b, threshold_s):
    """The jobs whose wait differs by more than threshold_s between passes a and b."""
    wait_a = {j["name"]: j for j in a["jobs"]}
    ahead_a, ahead_b = overtaken(a), overtaken(b)
    rows = []
    for jb in b["jobs"]:
        ja = wait_a.get(jb["name"])
        if not ja or ja["wait_s"] is None or jb["wait_s"] is None:
            continue
        diff = jb["wait_s"] - ja["wait_s"]
        rows.append({"name": jb["name"], "nodes": jb["nodes"], "limit_min": jb["limit_min"],
                     "run_s": jb["run_s"], "submit_s": jb["submit_s"],
                     "wait_a_s": ja["wait_s"], "wait_b_s": jb["wait_s"],
                     "diff_s": round(diff, 3), "ahead_a": ahead_a.get(jb["name"], False),
                     "ahead_b": ahead_b.get(jb["name"], False)})
    moved = [r for r in rows if abs(r["diff_s"]) > threshold_s]
    flips = [r for r in moved if r["ahead_a"] != r["ahead_b"]]
    diffs = [r["diff_s"] for r in rows]
    return {"compared": len(rows), "moved": sorted(moved, key=lambda r: -abs(r["diff_s"])),
            "order_flips": len(flips), "threshold_s": threshold_s,
            "diff_p50_s": percentile(diffs, 50), "diff_p99_s": percentile(diffs, 99)}


def cmd_compare(args):
    result = compare_passes(load(args.a), load(args.b), args.threshold_s)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)
    print(f"{result['compared']} jobs compared; {len(result['moved'])} moved by more than "
          f"{args.threshold_s:g} s, {result['order_flips']} of them started ahead of an earlier "
          f"submission in one pass and not in the other; diff p50 {fmt(result['diff_p50_s'])} s, "
          f"p99 {fmt(result['diff_p99_s'])} s")
    print("| job | nodes | limit, min | run, s | submit, s | wait a, s | wait b, s | b - a, s "
          "| ahead in a | ahead in b |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---|---|")
    for r in result["moved"]:
        print(f"| {r['name']} | {r['nodes']} | {r['limit_min']} | {r['run_s']} | {r['submit_s']} "
              f"| {r['wait_a_s']:.2f} | {r['wait_b_s']:.2f} | {r['diff_s']:+.2f} "
              f"| {'yes' if r['ahead_a'] else 'no'} | {'yes' if r['ahead_b'] else 'no'} |")
