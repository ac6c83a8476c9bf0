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
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
# shellcheck source=trace_inputs.sh
source "$(dirname "$0")/trace_inputs.sh"
traces=("$@")
[[ ${#traces[@]} -gt 0 ]] || traces=("${all_traces[@]}")
trace_inputs "$out" "$make_node_events"

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
