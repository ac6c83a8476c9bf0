#!/usr/bin/env bash
# What would knowing every hole's end be worth on node logs? (docs/benchmarks.md, "What hole
# ends are worth on node logs".) Builds `gaptrain` with what_if_known_ends.patch in a temporary
# worktree and replays the shipped policy three ways on each input of compare_traces.sh:
#   shipped    the build under test, no end known (a node log has no plan);
#   known      the plan knows each hole's actual end from its first second;
#   on-time    the same, and nodes a planned job waits for go back when its start is due.
# The patch is a measurement, never shipped: on Slurm a lease of ours can be what delays a
# planned job, and only giving its nodes back at once (what "known" does) is safe then.
#
#   tests/bench/what_if_known_ends.sh build [TRACE...]   # TRACE as compare_traces.sh's
#                                                        # (default: all of them)
set -euo pipefail
build="$(cd "$1" && pwd)"
shift
repo="$(cd "$(dirname "$0")/../.." && pwd)"
data="$repo/../shared/data"
shipped="$build/controller/gaptrain"
make_node_events="$build/tests/bench/make_node_events"
work="$(mktemp -d)"
cleanup() {
  git -C "$repo" worktree remove --force "$work/tree" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

git -C "$repo" worktree add --quiet --detach "$work/tree" HEAD
git -C "$work/tree" apply "$repo/tests/bench/what_if_known_ends.patch"
cmake -S "$work/tree" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DGAPTRAIN_SHARED_DATA_DIR="$data" >/dev/null
cmake --build "$work/build" --target gaptrain >/dev/null
what_if="$work/build/controller/gaptrain"

# shellcheck source=trace_inputs.sh
source "$repo/tests/bench/trace_inputs.sh"
traces=("$@")
[[ ${#traces[@]} -gt 0 ]] || traces=("${all_traces[@]}")
trace_inputs "$work" "$make_node_events"

for trace in "${traces[@]}"; do
  a="$(args_of "$trace")"
  echo "$shipped simulate $a --json $work/$trace.shipped.json"
  echo "GAPTRAIN_WHAT_IF_KNOWN_ENDS=1 $what_if simulate $a --json $work/$trace.known.json"
  echo "GAPTRAIN_WHAT_IF_KNOWN_ENDS=1 GAPTRAIN_WHAT_IF_ON_TIME=1 $what_if simulate $a" \
    "--json $work/$trace.on-time.json"
done | xargs -P 2 -I{} bash -c "{} >/dev/null"

python3 - "$work" "${traces[@]}" <<'PY'
import json, sys
work, traces = sys.argv[1], sys.argv[2:]
print("| trace | ends | useful samples | vs shipped | efficiency | utilization | rescales |")
print("|---|---|---:|---:|---:|---:|---:|")
for trace in traces:
    base = json.load(open(f"{work}/{trace}.shipped.json"))["useful_samples"]
    for ends in ("shipped", "known", "on-time"):
        s = json.load(open(f"{work}/{trace}.{ends}.json"))
        print(f"| {trace} | {ends} | {s['useful_samples']:.5g} | {s['useful_samples'] / base:.3f} | "
              f"{s['efficiency']:.3f} | {s['utilization']:.3f} | {s['rescales']} |")
PY
