#!/usr/bin/env python3
"""Writes the oversized `gaptrain solve` inputs of docs/benchmarks.md "Faults and bad input"
into a directory: each is a valid problem that claims far more than exists.

    tests/bench/hostile_solve_inputs.py DIR
    gaptrain solve DIR/max1e7.json      # a job's max_nodes 1e7 on 64 nodes
    gaptrain solve DIR/max2e31.json     # 2^31-1
    gaptrain solve DIR/curve1e5.json    # a curve of 100,000 points on 1,000 nodes
    gaptrain solve DIR/curve1e6.json    # 1,000,000 points (refused: beyond any cluster)
    gaptrain solve DIR/jobs30k.json     # 30,000 jobs on 1,000 nodes, 1 s limit
"""
import json
import os
import sys

HOLE_ENDS = [None, 120.0, 180.0, None, 300.0, 60.0, None, 180.0, 240.0]
SMALL_CURVE = [[1, 100.0], [2, 190.0], [4, 360.0]]


def job(i, max_nodes, curve=SMALL_CURVE):
    return {"id": f"j{i}", "min_nodes": 1, "max_nodes": max_nodes, "curve": curve,
            "up_cost_s": 18, "down_cost_s": 12}


def problem(node_count, jobs, held):
    """`held` nodes run one job each (the first jobs), the rest are idle."""
    nodes = [{"name": f"n{i}", "job": f"j{i}" if i < held else None,
              "hole_end_s": HOLE_ENDS[i % len(HOLE_ENDS)]} for i in range(node_count)]
    return {"horizon_s": 600, "objective": "speedup", "nodes": nodes, "jobs": jobs,
            "solver": {"time_limit_s": 1.0}}


def long_curve(points):
    # Concave: each node adds a little less (0.9 exponent).
    return [[n, round(100.0 * n ** 0.9, 3)] for n in range(1, points + 1)]


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    inputs = {
        "max1e7.json": problem(64, [job(i, 10_000_000) for i in range(8)], 8),
        "max2e31.json": problem(64, [job(i, 2**31 - 1) for i in range(8)], 8),
        "curve1e5.json": problem(1000, [job(0, 100_000, long_curve(100_000)), job(1, 4)], 1),
        "curve1e6.json": problem(1000, [job(0, 1_000_000, long_curve(1_000_000)), job(1, 4)], 1),
        "jobs30k.json": problem(1000, [job(i, 4) for i in range(30_000)], 500),
    }
    for name, value in inputs.items():
        with open(os.path.join(out, name), "w") as f:
            json.dump(value, f)
        print(os.path.join(out, name))


if __name__ == "__main__":
    main()
