#!/usr/bin/env python3
"""Replay of a slice of an SWF trace through a live local Slurm cluster, and its metrics.

The logic behind scripts/bench-cluster (which starts and stops the clusters); scripts/demo
uses `log-summary`, `log-tail` and `nodes`. Python 3 standard library only. Subcommands:

  plan        SWF slice -> the regular jobs to submit (time-compressed, sizes mapped)
  replay      one pass on the cluster of the current SLURM_CONF: optional elastic jobs
              first, then the plan's jobs at their times, sampling the nodes every second,
              until every job ended (or a deadline); writes the pass's raw results
  report      baseline pass + elastic passes (+ noise passes) + their gaptraind logs -> the
              metrics, each over the passes with a 95% interval (JSON + table;
              replay_report.py, replay_stats.py)
  compare     two passes of the same plan job by job: which jobs moved and whether backfill
              ordered them differently
  log-summary the actions and latencies in one gaptraind log
  log-tail    the last decisions in a gaptraind log, one short line each
  nodes       one sample: idle, elastic-held and regular-held node counts

Time is wall-clock epoch seconds throughout, so that the job stamps, the samples and the
gaptraind log (`time=<epoch>`) can be compared directly.
"""

import argparse
import gzip
import json
import math
import os
import random
import subprocess
import sys
import threading
import time

from gaptraind_log import log_summary, parse_log
from replay_report import cmd_compare, cmd_report, fmt

# States Slurm reports for a node no job is running on; `plnd` is an idle node that
# backfill has planned for a pending job: still a hole until that job starts.
IDLE_STATES = {"idle", "plnd"}
# scripts/local-cluster's home node's partition (home1): never a hole, never regular work.
HOME_PARTITION = "home"
# Job states after which nothing more will happen to a job.
FINAL_STATES = {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "PREEMPTED",
                "OUT_OF_MEMORY", "BOOT_FAIL", "DEADLINE", "REVOKED"}


# --------------------------------------------------------------------------------------
# Plan: which regular jobs to submit, when, how big and for how long.

def read_swf(path):
    """The jobs of an SWF file (gzip or plain) as dicts of the fields the replay needs."""
    opener = gzip.open if path.endswith(".gz") else open
    jobs = []
    with opener(path, "rt") as f:
        for line in f:
            if line.startswith(";") or not line.strip():
                continue
            field = line.split()
            jobs.append({"id": int(field[0]), "submit": int(field[1]), "run": int(field[3]),
                         "alloc_procs": int(field[4]), "req_procs": int(field[7]),
                         "req_time": int(field[8])})
    return jobs


def compress_job(job, nodes, trace_nodes, factor, min_run_s, margin_s):
    """One trace job as a job for the small cluster, or None if it never ran.

    Size: ceil(procs * nodes / trace_nodes), at least 1, at most `nodes`. Times: divided by
    `factor`; Slurm limits are whole minutes, so the limit is rounded up to >= 1 minute, and
    the run is kept `margin_s` below it so that no job hits its limit because of start-up
    overheads (which would make it fail in one pass and not in the other).
    """
    procs = job["req_procs"] if job["req_procs"] > 0 else job["alloc_procs"]
    if job["run"] <= 0 or procs <= 0:
        return None
    size = min(nodes, max(1, math.ceil(procs * nodes / trace_nodes)))
    requested = job["req_time"] if job["req_time"] > 0 else job["run"]
    limit_min = max(1, math.ceil(max(requested, 1) / factor / 60.0))
    run_s = max(min_run_s, job["run"] / factor)
    run_s = min(run_s, limit_min * 60 - margin_s)
    return {"name": f"r{job['id']}", "trace_id": job["id"], "nodes": size,
            "limit_min": limit_min, "run_s": round(run_s, 2)}


def make_plan(jobs, start, duration, nodes, trace_nodes, factor, min_run_s, margin_s):
    """The jobs submitted in [start, start + duration) of the trace (SWF submit seconds),
    with submit times relative to the replay's start, in wall seconds."""
    plan = []
    for job in jobs:
        if not start <= job["submit"] < start + duration:
            continue
        small = compress_job(job, nodes, trace_nodes, factor, min_run_s, margin_s)
        if small is None:
            continue
        small["submit_s"] = round((job["submit"] - start) / factor, 3)
        plan.append(small)
    plan.sort(key=lambda j: (j["submit_s"], j["trace_id"]))
    return plan


def cmd_plan(args):
    jobs = read_swf(args.swf)
    plan = make_plan(jobs, args.start, args.duration, args.nodes, args.trace_nodes,
                     args.compress, args.min_run_s, args.margin_s)
    if not plan:
        sys.exit(f"cluster_replay: no job was submitted in [{args.start}, "
                 f"{args.start + args.duration}) of {args.swf}")
    node_s = sum(j["nodes"] * j["run_s"] for j in plan)
    span = args.duration / args.compress
    meta = {"swf": args.swf, "start": args.start, "duration": args.duration,
            "nodes": args.nodes, "trace_nodes": args.trace_nodes, "compress": args.compress,
            "jobs": len(plan), "submit_span_s": round(span, 1),
            "longest_limit_min": max(j["limit_min"] for j in plan),
            # Offered work over the submission span: above 1 the queue can only grow.
            "offered_load": round(node_s / (args.nodes * span), 3)}
    with open(args.out, "w") as f:
        json.dump({"meta": meta, "jobs": plan}, f, indent=1)
    print(f"plan: {meta['jobs']} jobs over {meta['submit_span_s']} s, offered load "
          f"{meta['offered_load']}, longest limit {meta['longest_limit_min']} min",
          file=sys.stderr)


# --------------------------------------------------------------------------------------
# Slurm queries. Every call has a timeout: a wedged slurmctld must end the benchmark, not
# hang it.

def slurm(*argv, timeout=30):
    return subprocess.run(argv, check=True, capture_output=True, text=True,
                          timeout=timeout).stdout


def node_counts():
    """(idle, elastic-held, regular-held) node counts right now.

    Held = nodes of running or completing jobs, counted per partition with squeue's %D (jobs
    are exclusive, so no node is counted twice); elastic: the elastic partition's jobs and the
    satellites, wherever allocated (named gaptrain:ID); the home node is not counted (the home
    mode's batch scripts run there). Idle = nodes sinfo calls idle or planned.
    """
    held = {"elastic": 0, "regular": 0}
    for line in slurm("squeue", "-a", "-h", "-t", "R,CG", "-o", "%P|%D|%j").splitlines():
        partition, count, name = line.split("|", 2)
        if partition == HOME_PARTITION:
            continue  # batch scripts at home hold no node that could train or run a regular job
        elastic = partition == "elastic" or name.startswith("gaptrain:")
        held["elastic" if elastic else "regular"] += int(count)
    idle = 0
    for line in slurm("sinfo", "-h", "-N", "-p", "regular", "-o", "%N|%t").splitlines():
        _, state = line.split("|")
        # Flags such as `*` (not responding) or `~` (powered off) trail the state name.
        if state.rstrip("*~#!%$@^-") in IDLE_STATES:
            idle += 1
    return idle, held["elastic"], held["regular"]


class Sampler(threading.Thread):
    """Samples node_counts() about every `interval` seconds until stopped.

    Node-seconds integrate each sample over the time to the next one, so a slow squeue
    (seconds, when slurmctld is busy) stretches an interval instead of losing it.
    """

    def __init__(self, interval=1.0):
        super().__init__(daemon=True)
        self.interval = interval
        self.samples = []  # (epoch, idle, elastic, regular)
        self.errors = 0
        self._done = threading.Event()

    def run(self):
        while not self._done.is_set():
            t = time.time()
            try:
                self.samples.append((round(t, 3), *node_counts()))
            except (subprocess.SubprocessError, ValueError):
                self.errors += 1
            self._done.wait(max(0.0, self.interval - (time.time() - t)))

    def stop(self):
        self._done.set()
        self.join()

    def node_seconds(self):
        totals = {"idle": 0.0, "elastic": 0.0, "regular": 0.0}
        for (t, idle, elastic, regular), (t_next, *_) in zip(self.samples, self.samples[1:]):
            dt = t_next - t
            totals["idle"] += idle * dt
            totals["elastic"] += elastic * dt
            totals["regular"] += regular * dt
        span = self.samples[-1][0] - self.samples[0][0] if len(self.samples) > 1 else 0.0
        return {k: round(v, 1) for k, v in totals.items()} | {"span_s": round(span, 1)}


def sbatch(argv, attempts=3):
    """Submits and returns the job id (sbatch --parsable prints `id` or `id;cluster`).
    Retried: a busy slurmctld can time out one submission, which must not end the replay."""
    for attempt in range(attempts):
        try:
            return int(slurm("sbatch", "--parsable", *argv).strip().split(";")[0])
        except subprocess.SubprocessError as error:
            if attempt + 1 == attempts:
                raise
            print(f"replay: sbatch failed ({error}), retrying", file=sys.stderr)
            time.sleep(1.0)


def sacct_jobs(ids):
    """sacct's view of the jobs `ids` (allocations only, -X), by job id."""
    out = slurm("sacct", "-X", "-n", "--parsable2", "-j", ",".join(map(str, ids)),
                "-o", "JobID,JobName,Partition,Submit,Start,End,State,NNodes,NodeList,ExitCode")
    jobs = {}
    for line in out.splitlines():
        jid, name, part, submit, start, end, state, nnodes, nodelist, exit_code = line.split("|")
        if not jid.isdigit():
            continue
        jobs[int(jid)] = {"name": name, "partition": part, "submit": submit, "start": start,
                          "end": end, "state": state.split()[0], "nnodes": nnodes,
                          "nodelist": nodelist, "exit_code": exit_code}
    return jobs


def live_job_ids(ids):
    """The jobs among `ids` that Slurm still has pending, running or completing."""
    wanted = set(ids)
    out = slurm("squeue", "-a", "-h", "-t", "PD,CF,R,CG,S", "-o", "%A")
    return {int(x) for x in out.split() if x.isdigit() and int(x) in wanted}


def read_start_stamp(path):
    """The `START <epoch>` line the job script writes first: its start, to the millisecond
    (sacct's Start has whole seconds, too coarse against a 5 s target)."""
    try:
        with open(path) as f:
            for line in f:
                if line.startswith("START "):
                    return float(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return None


# --------------------------------------------------------------------------------------
# One pass.

def submit_elastic(args, workdir):
    """Submits the elastic jobs and waits (bounded) until one runs, so that the replay
    begins with the holes already filled.

    Held (--hold) by default: gaptraind admits held elastic jobs onto the nodes its allocator
    picks, so two jobs share the holes from the start; a plain submission lets Slurm start the
    first job on every idle node and the others wait."""
    ids = []
    hold = ["--hold"] if args.hold else []
    for k in range(args.elastic_jobs):
        out = os.path.join(workdir, f"elastic-{k + 1}.out")
        # The training stand-in: one `sleep` per node, which dies at once on the launcher's
        # SIGTERM, so a drain costs no more than the launcher's own handshake. In the home mode
        # the launcher also serves the job's store at home (GAPTRAIN_PYTHON, PYTHONPATH from
        # scripts/bench-cluster); `sleep` never uses it.
        command = f"exec {args.launch} --grace-s {args.grace_s} -- sleep 1000000"
        # Without a declared cost gaptraind assumes 30 s a resize and `sleep`, which reports no
        # progress, never corrects it: --elastic-cost declares what the stand-in really costs.
        cost = [f"--elastic-cost={args.elastic_cost}"] if args.elastic_cost else []
        ids.append(sbatch([*hold, "-p", "elastic", "-N", args.elastic_nodes, "--exclusive",
                           f"--elastic={args.elastic_nodes}", *cost, "-J", f"elastic{k + 1}",
                           "-D", workdir, "-o", out, "--wrap", command]))
    deadline = time.time() + 30
    while ids and time.time() < deadline and not elastic_training():
        time.sleep(0.5)
    return ids


def elastic_training():
    """Whether an elastic job trains on a node: runs in the elastic partition (its batch host
    a compute node) or has a satellite running (in the home mode, its batch script at home)."""
    for line in slurm("squeue", "-a", "-h", "-t", "R", "-o", "%P|%j").splitlines():
        partition, name = line.split("|", 1)
        if partition == "elastic" or name.startswith("gaptrain:"):
            return True
    return False


def submit_regular(job, workdir):
    out = os.path.join(workdir, f"{job['name']}.out")
    # The first line stamps the start; `exec` so that the job is the sleep itself.
    script = f"echo START $(date +%s.%N); exec sleep {job['run_s']}"
    submitted = time.time()
    jid = sbatch(["-p", "regular", "--exclusive", "-N", str(job["nodes"]),
                  "-t", str(job["limit_min"]), "-J", job["name"], "-D", workdir, "-o", out,
                  "--wrap", script])
    return {**job, "job_id": jid, "submitted_at": round(submitted, 3), "out": out}


def cmd_replay(args):
    with open(args.plan) as f:
        plan = json.load(f)["jobs"]
    workdir = os.path.abspath(args.workdir)
    os.makedirs(workdir, exist_ok=True)
    elastic_ids = submit_elastic(args, workdir) if args.elastic_jobs > 0 else []
    sampler = Sampler()
    sampler.start()
    if args.jitter_s > 0:
        # Each submission a little later (uniform in [0, jitter_s), seeded): how much the
        # schedule itself amplifies a small perturbation, without any elastic job.
        rng = random.Random(args.seed)
        plan = sorted(({**job, "submit_s": job["submit_s"] + rng.uniform(0.0, args.jitter_s)}
                       for job in plan), key=lambda job: job["submit_s"])
    t0 = time.time()
    load_at_start = os.getloadavg()
    submitted = []
    for job in plan:
        delay = t0 + job["submit_s"] - time.time()
        if delay > 0:
            time.sleep(delay)
        submitted.append(submit_regular(job, workdir))
    print(f"replay: {len(submitted)} jobs submitted in {time.time() - t0:.0f} s; waiting for "
          f"them to end (at most {args.tail_s:.0f} s)", file=sys.stderr)

    ids = [j["job_id"] for j in submitted]
    deadline = time.time() + args.tail_s
    while time.time() < deadline and live_job_ids(ids):
        time.sleep(1.0)
    cut = sorted(live_job_ids(ids))
    sampler.stop()
    if cut:
        # Still pending or running at the deadline: cancelled, and reported as cut, not failed.
        print(f"replay: {len(cut)} jobs still in the queue at the deadline: cancelling",
              file=sys.stderr)
        slurm("scancel", *map(str, cut))
    if elastic_ids:
        slurm("scancel", *map(str, elastic_ids))

    cut_at = time.time()
    accounting = wait_for_accounting(ids + elastic_ids)
    jobs = []
    for job in submitted:
        acct = accounting.get(job["job_id"], {})
        start = read_start_stamp(job["out"])
        record = {**job, "sacct": acct, "started_at": start, "cut": job["job_id"] in cut,
                  "wait_s": None if start is None else round(start - job["submitted_at"], 3)}
        if start is None:
            # Never started: its wait is at least the time it pended before we cancelled it.
            record["wait_at_least_s"] = round(cut_at - job["submitted_at"], 3)
        jobs.append(record)
    result = {"pass": args.name, "t0": t0, "end": time.time(), "jobs": jobs,
              "elastic_jobs": [{"job_id": i, "sacct": accounting.get(i, {})} for i in elastic_ids],
              "node_seconds": sampler.node_seconds(), "sample_errors": sampler.errors,
              "samples": sampler.samples,
              # The machine's load average (1, 5, 15 min) as the pass began and ended: other
              # work beside a pass makes its schedule noisier.
              "load": {"start": [round(x, 2) for x in load_at_start],
                       "end": [round(x, 2) for x in os.getloadavg()]}}
    with open(args.out, "w") as f:
        json.dump(result, f)
    print(f"replay: pass {args.name} done in {result['end'] - t0:.0f} s", file=sys.stderr)


def wait_for_accounting(ids, timeout=30):
    """sacct for `ids`, once slurmdbd has every job's final state (it lags slurmctld)."""
    deadline = time.time() + timeout
    while True:
        acct = sacct_jobs(ids)
        done = all(acct.get(i, {}).get("state") in FINAL_STATES for i in ids)
        if done or time.time() > deadline:
            return acct
        time.sleep(1.0)


def cmd_log_summary(args):
    summary = log_summary(args.log)
    if args.json:
        print(json.dumps(summary, indent=1))
        return
    g, c = summary["grow_latency_s"], summary["reclaim_release_latency_s"]
    print(f"actions: {', '.join(f'{k}: {v}' for k, v in summary['actions'].items()) or 'none'}")
    print(f"hole opened -> grow done: n={g['count']} p50 {fmt(g['p50'], ' s')} "
          f"max {fmt(g['max'], ' s')}")
    print(f"reclaim needed -> released: n={c['count']} p50 {fmt(c['p50'], ' s')} "
          f"max {fmt(c['max'], ' s')} (never released: {c['unreleased']})")


# The messages worth showing live: what gaptraind decided and did.
SHOWN_MESSAGES = {"action done", "action failed", "reclaim needed", "drain requested",
                  "lease set"}


def cmd_log_tail(args):
    """The last `-n` decisions of a gaptraind log, one short line each, for scripts/demo."""
    shown = []
    for e in parse_log(args.log):
        if e.get("msg") not in SHOWN_MESSAGES:
            continue
        last = shown[-1] if shown else {}
        # One "reclaim needed" line per node: one line per job and waiting job reads better.
        if (e["msg"] == "reclaim needed" and last.get("msg") == e["msg"]
                and last.get("JOB_ID") == e.get("JOB_ID")
                and last.get("WAITING_JOB") == e.get("WAITING_JOB")):
            if e.get("NODE") not in last["NODE"].split(","):
                last["NODE"] += "," + e.get("NODE", "")
            continue
        shown.append(dict(e))
    for e in shown[-args.n:]:
        clock = time.strftime("%H:%M:%S", time.localtime(e["time"]))
        what = e["msg"]
        if e.get("ACTION"):
            what = f"{e['ACTION']} {what.split()[-1]}" if what.startswith("action") else \
                f"{what} ({e['ACTION']})"
        nodes = e.get("NODES") or e.get("NODE") or ""
        detail = e.get("REASON") or (f"for regular job {e['WAITING_JOB']}"
                                     if "WAITING_JOB" in e else "")
        if "ELAPSED_MS" in e:
            detail = f"{e['ELAPSED_MS']} ms"
        if "TIME_LIMIT_MIN" in e:
            detail = f"time limit {e['TIME_LIMIT_MIN']} min"
        print(f"{clock}  {what:<16} job {e.get('JOB_ID', '?'):<4} {nodes:<24} {detail}")


def cmd_nodes(_args):
    idle, elastic, regular = node_counts()
    print(idle, elastic, regular)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)

    s = sub.add_parser("plan", help="SWF slice -> jobs to submit")
    s.add_argument("--swf", required=True)
    s.add_argument("--start", type=int, required=True, help="trace seconds (SWF submit field)")
    s.add_argument("--duration", type=int, required=True, help="trace seconds")
    s.add_argument("--nodes", type=int, required=True)
    s.add_argument("--trace-nodes", type=int, default=100)
    s.add_argument("--compress", type=float, required=True)
    s.add_argument("--min-run-s", type=float, default=1.0)
    s.add_argument("--margin-s", type=float, default=5.0)
    s.add_argument("--out", required=True)
    s.set_defaults(func=cmd_plan)

    s = sub.add_parser("replay", help="one pass on the cluster of $SLURM_CONF")
    s.add_argument("--plan", required=True)
    s.add_argument("--name", required=True)
    s.add_argument("--workdir", required=True, help="job outputs and cwd")
    s.add_argument("--out", required=True)
    s.add_argument("--tail-s", type=float, default=300.0,
                   help="after the last submission, wait at most this for the jobs to end")
    s.add_argument("--elastic-jobs", type=int, default=0)
    s.add_argument("--elastic-nodes", default="1-8")
    s.add_argument("--launch", help="gaptrain-launch binary (with --elastic-jobs)")
    s.add_argument("--grace-s", type=float, default=2.0)
    s.add_argument("--elastic-cost", default="",
                   help="UP:DOWN seconds a resize costs the elastic jobs (sbatch --elastic-cost); "
                        "default: none declared (gaptraind assumes 30 s)")
    s.add_argument("--hold", action=argparse.BooleanOptionalAction, default=True,
                   help="submit the elastic jobs held, for gaptraind to admit (default)")
    s.add_argument("--jitter-s", type=float, default=0.0,
                   help="submit each regular job up to this much later (uniform, seeded)")
    s.add_argument("--seed", type=int, default=1)
    s.set_defaults(func=cmd_replay)

    s = sub.add_parser("report", help="metrics of a baseline and elastic passes")
    s.add_argument("--baseline", required=True)
    s.add_argument("--elastic", required=True, nargs="+", help="the elastic passes")
    s.add_argument("--log", nargs="+", help="each elastic pass's gaptraind.log, in order")
    s.add_argument("--noise", nargs="+", help="one pass without elastic jobs after each "
                   "elastic one, in order: this run's own noise")
    s.add_argument("--lease-s", type=float, default=300.0)
    s.add_argument("--setup", help="JSON object copied into the report")
    s.add_argument("--json", required=True)
    s.set_defaults(func=cmd_report)

    s = sub.add_parser("compare", help="two passes of the same plan, job by job")
    s.add_argument("a", help="a pass's JSON (e.g. baseline.json)")
    s.add_argument("b", help="another pass's JSON of the same plan (e.g. noise.json)")
    s.add_argument("--threshold-s", type=float, default=1.0,
                   help="list the jobs whose wait differs by more than this")
    s.add_argument("--json", help="write the comparison here too")
    s.set_defaults(func=cmd_compare)

    s = sub.add_parser("log-summary", help="actions and latencies of a gaptraind log")
    s.add_argument("log")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_log_summary)

    s = sub.add_parser("log-tail", help="the last decisions of a gaptraind log, one a line")
    s.add_argument("log")
    s.add_argument("-n", type=int, default=8)
    s.set_defaults(func=cmd_log_tail)

    s = sub.add_parser("nodes", help="idle, elastic-held, regular-held node counts")
    s.set_defaults(func=cmd_nodes)

    args = p.parse_args(argv)
    args.func(args)


if __name__ == "__main__":
    main()
