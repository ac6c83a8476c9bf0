#!/usr/bin/env bash
# What telling gaptraind the node counts jobs run at gains (allowed sizes):
# `gaptrain simulate` on each trace with the example job mix made sized (resnet18 jobs a
# pipeline of 4-node stages, 4-MAX:4; the others data parallel at powers of two), once with the
# counts told (gaptraind grows and shrinks between them) and once with --ignore-allowed-sizes
# (as before: any count in the range, a job trains on the largest allowed count it holds and the
# rest of its nodes idle). Same jobs, same curves, same trace. Prints a markdown table.
#
#   tests/bench/allowed_sizes_table.sh build [TRACE...]
#       TRACE: summit-w0 summit-w1 summit-w2 summit-week synth1 synth2 (default: summit-w0
#       summit-w1 synth1 synth2)
set -euo pipefail
# shellcheck source=told_vs_not_told.sh
source "$(dirname "$0")/told_vs_not_told.sh"
told_setup "$@"

python3 - "$data/models/jobs-example.csv" "$out/jobs-sized.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
with open(sys.argv[2], "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=list(rows[0]) + ["allowed_sizes"])
    w.writeheader()
    for r in rows:
        top = int(r["max_nodes"])
        if r["model"] == "resnet18":  # a pipeline of 4-node stages
            r["min_nodes"], r["allowed_sizes"] = "4", f"4-{top}:4"
        else:  # data parallel at powers of two
            sizes = [2**i for i in range(20) if int(r["min_nodes"]) <= 2**i <= top]
            r["min_nodes"], r["max_nodes"] = str(sizes[0]), str(sizes[-1])
            r["allowed_sizes"] = ",".join(map(str, sizes))
        w.writerow(r)
PY
# shellcheck disable=SC2034 # read by args_of
mix=(--jobs "$out/jobs-sized.csv" --curves "$data/models/curves.csv" --repeat-jobs 3600)

told_vs_not_told --ignore-allowed-sizes
