#!/usr/bin/env bash
# What telling gaptraind the node types gains (node types): `gaptrain simulate` on each
# trace with half its 1,000 replayed nodes "a100" and half "v100" (in the replay's node order
# the first 500 a100; then again alternating, since where a type's nodes lie decides how much
# of the holes it offers), and the example job mix with a curve per type: vgg16 and resnet18 (compute-bound) at their
# measured curve on a100 and at half of it on v100; shufflenet (bound by its input pipeline)
# the same on both, one untyped curve. Once told (the jobs register their curves per type, each
# job runs on one type), once with --ignore-node-types (gaptraind sees no types; each job
# registers its slowest type's curve, and where it holds both types trains at the v100 curve at
# its total count). Same jobs, same trace. Prints a markdown table per split.
#
#   tests/bench/node_types_table.sh build [TRACE...]
#       TRACE: summit-w0 summit-w1 summit-w2 summit-week synth1 synth2 (default: summit-w0
#       summit-w1 synth1 synth2)
set -euo pipefail
# shellcheck source=told_vs_not_told.sh
source "$(dirname "$0")/told_vs_not_told.sh"
told_setup "$@"

python3 - "$data/models/curves.csv" "$out/curves-typed.csv" <<'PY'
import csv, sys
v100_speed = {"vgg16": 0.5, "resnet18": 0.5}  # per node, of the a100 curve; others untyped
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
with open(sys.argv[2], "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["model", "nodes", "samples_per_s", "type"])
    for r in rows:
        speed = v100_speed.get(r["model"])
        if speed is None:
            w.writerow([r["model"], r["nodes"], r["samples_per_s"], ""])
            continue
        w.writerow([r["model"], r["nodes"], r["samples_per_s"], "a100"])
        w.writerow([r["model"], r["nodes"], f"{float(r['samples_per_s']) * speed:.6g}", "v100"])
PY
# shellcheck disable=SC2034 # read by args_of
mix=(--jobs "$data/models/jobs-example.csv" --curves "$out/curves-typed.csv" --repeat-jobs 3600)

# The second split: a node-event log's first 1,000 nodes (the replay's, in order of first
# appearance) alternately a100 and v100, as a node,type file per trace.
for trace in "${traces[@]}"; do
  # shellcheck disable=SC2046 # args_of's words, one argument each
  python3 - "$out/$trace.alternate.csv" $(args_of "$trace") <<'PY'
import csv, gzip, sys
target, args = sys.argv[1], sys.argv[2:]
if "--node-events" not in args:
    sys.exit(f"node_types_table.sh: {target}: the alternate split needs a node-event trace")
path = args[args.index("--node-events") + 1]
rows = csv.reader(gzip.open(path, "rt") if path.endswith(".gz") else open(path))
order, seen = [], set()
for row in rows:
    if row[:3] == ["time", "node", "state"] or row[1] in seen:
        continue
    seen.add(row[1])
    order.append(row[1])
    if len(order) == 1000:
        break
with open(target, "w") as f:
    f.write("node,type\n")
    for i, node in enumerate(order):
        f.write(f"{node},{'a100' if i % 2 == 0 else 'v100'}\n")
PY
done

split=halves
# shellcheck disable=SC2329 # called by told_vs_not_told
more_args_of() {
  if [[ $split == halves ]]; then
    echo "--node-types a100=500,v100=500"
  else
    echo "--node-types $out/$1.alternate.csv"
  fi
}
echo "Nodes 1-500 a100, 501-1000 v100:"
echo
told_vs_not_told --ignore-node-types
split=alternate
echo
echo "a100 and v100 alternating:"
echo
told_vs_not_told --ignore-node-types
