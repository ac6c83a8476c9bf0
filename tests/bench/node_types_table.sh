#!/usr/bin/env bash
# What telling gaptraind the node types gains (issue 33, node types): `gaptrain simulate` on each
# trace with half its 1,000 replayed nodes "a100" and half "v100" (in the replay's node order),
# and the example job mix with a curve per type: vgg16 and resnet18 (compute-bound) at their
# measured curve on a100 and at half of it on v100; shufflenet (bound by its input pipeline)
# the same on both, one untyped curve. Once told (the jobs register their curves per type, each
# job runs on one type), once with --ignore-node-types (gaptraind sees no types; each job
# registers its slowest type's curve, and where it holds both types trains at the v100 curve at
# its total count). Same jobs, same trace. Prints a markdown table.
#
#   tests/bench/node_types_table.sh build [TRACE...]
#       TRACE: summit-w0 summit-w1 summit-w2 summit-week synth1 synth2 (default: summit-w0
#       summit-w1 synth1 synth2)
set -euo pipefail
build="$1"
shift
gaptrain="$build/controller/gaptrain"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
# shellcheck source=trace_inputs.sh
source "$(dirname "$0")/trace_inputs.sh"
traces=("$@")
[[ ${#traces[@]} -gt 0 ]] || traces=(summit-w0 summit-w1 synth1 synth2)
trace_inputs "$out" "$build/tests/bench/make_node_events"

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
mix=(--jobs "$data/models/jobs-example.csv" --curves "$out/curves-typed.csv" --repeat-jobs 3600
  --node-types a100=500,v100=500)

for trace in "${traces[@]}"; do
  a="$(args_of "$trace")"
  echo "$gaptrain simulate $a --json $out/$trace.told.json >/dev/null"
  echo "$gaptrain simulate $a --ignore-node-types --json $out/$trace.blind.json >/dev/null"
done | xargs -P 2 -I{} bash -c "{}"

python3 - "$out" "${traces[@]}" <<'PY'
import json, sys
out, traces = sys.argv[1], sys.argv[2:]
print("| trace | useful samples, told | not told | told / not told | jobs done, told | not told | rescales, told | not told |")
print("|---|---:|---:|---:|---:|---:|---:|---:|")
for t in traces:
    told = json.load(open(f"{out}/{t}.told.json"))
    blind = json.load(open(f"{out}/{t}.blind.json"))
    assert told["parameters"]["node_type_counts"] == {"a100": 500, "v100": 500}, t
    print(f"| {t} | {told['useful_samples']:.4g} | {blind['useful_samples']:.4g} | "
          f"{told['useful_samples'] / blind['useful_samples']:.3f} | {told['jobs_completed']} | "
          f"{blind['jobs_completed']} | {told['rescales']} | {blind['rescales']} |")
PY
