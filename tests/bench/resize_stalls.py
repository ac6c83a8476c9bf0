#!/usr/bin/env python3
"""The training stall of each resize of a job, from `gaptrain job ID --json`.

usage: resize_stalls.py JOB.json [JOB.json ...]
       resize_stalls.py --table STEP_S=JOB.json [STEP_S=JOB.json ...]

A resize's stall is the longest stretch without new samples that begins from 2 s before it up
to 2 s before its next resize (at most 120 s after it), less the job's usual gap between
progress points (the median):
what the resize cost the training beyond its normal reporting. Prints one line per resize
(job, kind, time, stall) and, per kind, the count, p50 and max; with several files, also over
all of them. `--table` prints one Markdown row per file instead: the step length it ran at,
grow and reclaim count, p50 and max, and whether each meets the goal (a reclaim at most one step
+ 0.5 s, a grow at most 0.5 s).
"""
from __future__ import annotations

import json
import statistics
import sys


def stalls(view: dict) -> list[tuple[str, float, float]]:
    points = []
    for t, s in view["progress"]:
        if not points or s > points[-1][1]:
            points.append((t, s))
    gaps = [b[0] - a[0] for a, b in zip(points, points[1:])]
    if len(gaps) < 2:
        return []
    usual = statistics.median(gaps)
    resizes = sorted(view["resizes"], key=lambda r: r["time"])
    out = []
    for i, r in enumerate(resizes):
        # The stretches that begin from 2 s before this resize up to 2 s before the next: each
        # stretch counts for one resize only (a grow followed at once by a reclaim does not get
        # the reclaim's stall too).
        start = r["time"] - 2.0
        end = min(r["time"] + 120.0,
                  resizes[i + 1]["time"] - 2.0 if i + 1 < len(resizes) else float("inf"))
        inside = [(a, b) for a, b in zip(points, points[1:]) if start <= a[0] < end]
        if not inside or r["kind"] == "admit":
            continue
        longest = max(b[0] - a[0] for a, b in inside)
        out.append((r["kind"], r["time"], max(0.0, longest - usual)))
    return out


# The goals a resize's stall is held to: a reclaim may cost the step it interrupts and 0.5 s
# more, a grow 0.5 s.
def reclaim_goal_s(step_s: float) -> float:
    return step_s + 0.5


GROW_GOAL_S = 0.5


def regular_starts(json_path: str) -> str:
    """The regular jobs' start after submission, from NAME.starts beside NAME.json (one number
    of seconds a line, the bench writes it)."""
    try:
        with open(json_path[:-len(".json")] + ".starts", encoding="utf-8") as f:
            values = [float(line) for line in f if line.strip()]
    except OSError:
        return "-"
    return f"{statistics.median(values):.2f} s, {max(values):.2f} s" if values else "-"


# What a leaving worker killed leaves in the job's output: slurmstepd's and srun's lines for the
# step, the helper's regroup after a lost worker.
KILL_PATH_MARKS = ("CANCELLED AT", "task 0: Killed", "a worker was lost")


def kill_path_lines(json_path: str) -> str:
    """Lines of the job's output (NAME.out beside NAME.json) that say a worker was killed, before
    the bench cancelled the job."""
    try:
        with open(json_path[:-len(".json")] + ".out", encoding="utf-8", errors="replace") as f:
            lines = f.read().split("got SIGTERM: stopping every step")[0].splitlines()
    except OSError:
        return "-"
    return str(sum(any(mark in line for mark in KILL_PATH_MARKS) for line in lines))


def table(specs: list[str]) -> int:
    print("| step | grow: n, p50, max | reclaim: n, p50, max | grow <= 0.5 s | reclaim <= step + 0.5 s "
          "| regular job started after, p50, max | kill-path lines |")
    print("|---:|---|---|---|---|---|---:|")
    complete = True
    for spec in specs:
        step_text, _, path = spec.partition("=")
        step_s = float(step_text)
        with open(path, encoding="utf-8") as f:
            by_kind: dict[str, list[float]] = {}
            for kind, _, stall in stalls(json.load(f)):
                by_kind.setdefault(kind, []).append(stall)
        cells = []
        verdicts = []
        for kind, goal in (("grow", GROW_GOAL_S), ("reclaim", reclaim_goal_s(step_s))):
            values = by_kind.get(kind, [])
            if not values:
                cells.append("none measured")
                verdicts.append("-")
                complete = False
                continue
            cells.append(f"{len(values)}, {statistics.median(values):.2f} s, {max(values):.2f} s")
            verdicts.append("yes" if max(values) <= goal else f"no (max {max(values):.2f} s > {goal:.2f} s)")
        print(f"| {step_s:g} s | {cells[0]} | {cells[1]} | {verdicts[0]} | {verdicts[1]} "
              f"| {regular_starts(path)} | {kill_path_lines(path)} |")
    return 0 if complete else 1


def main(paths: list[str]) -> int:
    if paths[:1] == ["--table"]:
        return table(paths[1:])
    by_kind: dict[str, list[float]] = {}
    for path in paths:
        with open(path, encoding="utf-8") as f:
            view = json.load(f)
        for kind, t, stall in stalls(view):
            print(f"{path}: {kind:8s} at {t:.1f}: stall {stall:.2f} s")
            by_kind.setdefault(kind, []).append(stall)
    for kind, values in sorted(by_kind.items()):
        print(f"{kind:8s} n={len(values)} p50={statistics.median(values):.2f} s max={max(values):.2f} s")
    return 0 if by_kind else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
