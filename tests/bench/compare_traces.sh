#!/usr/bin/env bash
# Every policy on every trace of docs/benchmarks.md ("Policies on real and synthetic traces"):
# `gaptrain simulate --compare` with known curves and with --learn, on the KTH-SP2 year (built
# in), three disjoint 2-day windows and the whole of the Summit late week, and two synthetic
# node-event logs (make_node_events), each 1,000 nodes with the example job mix resubmitted
# hourly. Prints one markdown table per trace and curves. Runs two at a time.
#
#   tests/bench/compare_traces.sh build [TRACE...]     # TRACE: kth summit-w0 summit-w1
#                                                      # summit-w2 summit-week synth1 synth2
set -euo pipefail
build="$1"
shift
gaptrain="$build/controller/gaptrain"
make_node_events="$build/tests/bench/make_node_events"
data="$(cd "$(dirname "$0")/../.." && pwd)/../shared/data"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
traces=("$@")
[[ ${#traces[@]} -gt 0 ]] || traces=(kth summit-w0 summit-w1 summit-w2 summit-week synth1 synth2)

mix=(--jobs "$data/models/jobs-example.csv" --curves "$data/models/curves.csv" --repeat-jobs 3600)
summit=(--node-events "$data/traces/summit-2021-02-late-node-events.csv.gz" --nodes 1000 "${mix[@]}")
"$make_node_events" --nodes 1000 --days 7 --seed 1 -o "$out/synth1.csv" 2>/dev/null
"$make_node_events" --nodes 1000 --days 7 --seed 2 --load 0.8 -o "$out/synth2.csv" 2>/dev/null

args_of() {
  case "$1" in
    kth) echo "" ;;
    summit-w0) echo "${summit[*]} --start 0 --duration 172800" ;;
    summit-w1) echo "${summit[*]} --start 172800 --duration 172800" ;;
    summit-w2) echo "${summit[*]} --start 345600 --duration 172800" ;;
    summit-week) echo "${summit[*]}" ;;
    synth1 | synth2) echo "--node-events $out/$1.csv ${mix[*]}" ;;
    *) echo "compare_traces.sh: unknown trace $1" >&2; exit 2 ;;
  esac
}

for trace in "${traces[@]}"; do
  a="$(args_of "$trace")"
  echo "$gaptrain simulate $a --compare --json $out/$trace.known.json >/dev/null"
  echo "$gaptrain simulate $a --learn --compare --json $out/$trace.learn.json >/dev/null"
done | xargs -P 2 -I{} bash -c "{}"

python3 - "$out" "${traces[@]}" <<'PY'
import json, sys
out, traces = sys.argv[1], sys.argv[2:]
for trace in traces:
    for curves in ("known", "learn"):
        c = json.load(open(f"{out}/{trace}.{curves}.json"))
        print(f"\n**{trace}, {curves} curves** (bound {c['oracle_samples']:.4g}, {c['oracle_bound']}, "
              f"{c['oracle_buckets']} buckets, {c['oracle_wall_s']:.1f} s)\n")
        print("| policy | settings | useful samples | vs BFTrainer's method | efficiency | "
              "utilization | usable | rescales | of bound |")
        print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
        for r in c["rows"]:
            print(f"| {r['policy']} | {r['settings']} | {r['useful_samples']:.5g} | "
                  f"{r['ratio_to_bftrainer_method']:.3f} | {r['efficiency']:.3f} | "
                  f"{r['utilization']:.3f} | {r['usable_utilization']:.3f} | {r['rescales']} | "
                  f"{r['fraction_of_oracle']:.3f} |")
PY
