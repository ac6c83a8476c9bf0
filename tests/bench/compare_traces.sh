#!/usr/bin/env bash
# Every policy on every trace of docs/benchmarks.md ("Policies on real and synthetic traces"):
# `gaptrain simulate --compare` with known curves and with --learn, on the KTH-SP2 year (built
# in), three disjoint 2-day windows and the whole of the Summit late week, and two synthetic
# node-event logs (make_node_events), each 1,000 nodes with the example job mix resubmitted
# hourly. Prints one markdown table per trace and curves. Runs two at a time.
#
#   tests/bench/compare_traces.sh build [--cost-scale UP:DOWN] [TRACE...]
#       TRACE: kth summit-w0 summit-w1 summit-w2 summit-week synth1 synth2 (default: all)
#
# --cost-scale UP:DOWN also runs every trace with each job's grow cost multiplied by UP and its
# shrink cost by DOWN (the job side's measured resize stalls against torchrun
# restarts'), and prints those tables with one more column, the ratio to BFTrainer's method at
# the job mix's own costs, and a summary of both.
set -euo pipefail
build="$1"
shift
scale=""
if [[ ${1:-} == --cost-scale ]]; then
  scale="${2:?--cost-scale needs UP:DOWN, e.g. 0.0077:0.0028}"
  [[ $scale =~ ^[0-9.]+:[0-9.]+$ ]] || { echo "--cost-scale: UP:DOWN, two numbers" >&2; exit 2; }
  shift 2
fi
gaptrain="$build/controller/gaptrain"
make_node_events="$build/tests/bench/make_node_events"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
# shellcheck source=trace_inputs.sh
source "$(dirname "$0")/trace_inputs.sh"
traces=("$@")
[[ ${#traces[@]} -gt 0 ]] || traces=("${all_traces[@]}")
trace_inputs "$out" "$make_node_events"
[[ -z $scale ]] || scaled_mix "$out" "${scale%:*}" "${scale#*:}"

for trace in "${traces[@]}"; do
  a="$(args_of "$trace")"
  echo "$gaptrain simulate $a --compare --json $out/$trace.known.json >/dev/null"
  echo "$gaptrain simulate $a --learn --compare --json $out/$trace.learn.json >/dev/null"
  if [[ -n $scale ]]; then
    a="$(args_of "$trace" scaled)"
    echo "$gaptrain simulate $a --compare --json $out/$trace.known.scaled.json >/dev/null"
    echo "$gaptrain simulate $a --learn --compare --json $out/$trace.learn.scaled.json >/dev/null"
  fi
done | xargs -P 2 -I{} bash -c "{}"

python3 - "$out" "$scale" "${traces[@]}" <<'PY'
import json, os, sys
out, scale, traces = sys.argv[1], sys.argv[2], sys.argv[3:]

def bftrainer_method(c):
    return next(r for r in c["rows"] if r["policy"] == "bftrainer-method")

summary = []
for trace in traces:
    for curves in ("known", "learn"):
        c = json.load(open(f"{out}/{trace}.{curves}.json"))
        runs = [("", c, None)]
        if scale:
            s = json.load(open(f"{out}/{trace}.{curves}.scaled.json"))
            runs.append((f", costs scaled {scale}", s, bftrainer_method(c)["useful_samples"]))
            today = next(r for r in c["rows"] if r["policy"] == "gaptrain")
            cheap = next(r for r in s["rows"] if r["policy"] == "gaptrain")
            summary.append((trace, curves, today, cheap, cheap["useful_samples"] /
                            bftrainer_method(c)["useful_samples"]))
        for label, run, own in runs:
            print(f"\n**{trace}, {curves} curves{label}** (bound {run['oracle_samples']:.4g}, "
                  f"{run['oracle_bound']}, {run['oracle_buckets']} buckets, "
                  f"{run['oracle_wall_s']:.1f} s)\n")
            extra = " vs BFTrainer's method at its own costs |" if own else ""
            print("| policy | settings | useful samples | vs BFTrainer's method |" + extra +
                  " efficiency | utilization | usable | rescales | of bound |")
            print("|---|---|---:|---:|" + ("---:|" if own else "") + "---:|---:|---:|---:|---:|")
            for r in run["rows"]:
                cell = f" {r['useful_samples'] / own:.3f} |" if own else ""
                print(f"| {r['policy']} | {r['settings']} | {r['useful_samples']:.5g} | "
                      f"{r['ratio_to_bftrainer_method']:.3f} |{cell} {r['efficiency']:.3f} | "
                      f"{r['utilization']:.3f} | {r['usable_utilization']:.3f} | {r['rescales']} | "
                      f"{r['fraction_of_oracle']:.3f} |")
if summary:
    print(f"\n**gaptrain (shipped policy) at the mix's costs and at costs scaled {scale}**\n")
    print("| trace | curves | useful samples | efficiency | scaled: useful samples | vs own costs | "
          "efficiency | vs BFTrainer's method at its own costs |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for trace, curves, today, cheap, ratio in summary:
        print(f"| {trace} | {curves} | {today['useful_samples']:.5g} | {today['efficiency']:.3f} | "
              f"{cheap['useful_samples']:.5g} | "
              f"{cheap['useful_samples'] / today['useful_samples']:.3f} | "
              f"{cheap['efficiency']:.3f} | {ratio:.3f} |")
PY
