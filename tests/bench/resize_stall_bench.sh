#!/usr/bin/env bash
# The training stall of each resize of the PyTorch example (examples/pytorch-elastic), on the
# helper (in-process regroups) and under torchrun (every worker restarted from its checkpoint,
# every 10 steps), side by side in one run on a private 8-node local cluster (issue 29).
#
# usage: tests/bench/resize_stall_bench.sh BUILD_DIR [CYCLES]   (as root; CYCLES default 4)
#
# Each variant: `gaptrain submit -N 1-4` of the example; once it trains on 4 nodes, CYCLES times a
# regular job of 6 nodes takes 2 of them (a reclaim), the training goes on at world size 2, the
# regular job is cancelled and the job grows back to 4. Then `gaptrain job ID --json` and
# tests/bench/resize_stalls.py: each resize's stall (the longest stretch without new samples
# around it, less the usual gap between progress points), p50 and max by kind.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
build=$(realpath "${1:?usage: $0 BUILD_DIR [CYCLES]}")
cycles=${2:-4}
dir=$(mktemp -d /tmp/gaptrain-stalls.XXXXXX)
rmdir "$dir"  # local-cluster makes it
eval "$("$repo/scripts/local-cluster" start --dir "$dir" --nodes 8 \
  --plugin "$build/plugin/spank_gaptrain.so" --gaptraind "$build/controller/daemon/gaptraind")"
trap '"$repo/scripts/local-cluster" stop --dir "$dir" >/dev/null' EXIT
export GAPTRAIN_LAUNCH=$build/launcher/gaptrain-launch GAPTRAIN_PYTHON=/usr/bin/python3
export PYTHONPATH=$repo/python GLOO_SOCKET_IFNAME=lo
work=$dir/work
mkdir -p "$work"
example=$repo/examples/pytorch-elastic/train_digits.py

world_size_is() {  # world_size_is FILE N
  [ -s "$1" ] && [ "$(tail -n 1 "$1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["world_size"])')" = "$2" ]
}
wait_for() {  # wait_for SECONDS WHAT CMD...
  local deadline=$((SECONDS + $1)) what=$2
  shift 2
  until "$@"; do
    ((SECONDS < deadline)) || { echo "timed out waiting for $what" >&2; exit 1; }
    sleep 0.2
  done
}

run_variant() {  # run_variant NAME SUBMIT-ARGS...: writes $work/NAME.json
  local name=$1 job progress regular cycle
  shift
  job=$("$build/controller/gaptrain" submit --parsable -N 1-4 --cost 1:1 -D "$work" \
    -o "$work/%j.out" -t 60 --export=ALL "$@")
  progress=$work/.gaptrain/$job/progress.jsonl
  wait_for 600 "$name: world size 4" world_size_is "$progress" 4
  for cycle in $(seq "$cycles"); do
    regular=$(sbatch --parsable -p regular -N 6 -t 5 -o /dev/null --wrap 'sleep 600')
    wait_for 600 "$name cycle $cycle: world size 2" world_size_is "$progress" 2
    sleep 5  # train a while at the smaller size
    scancel "$regular"
    wait_for 600 "$name cycle $cycle: world size 4" world_size_is "$progress" 4
    sleep 5
    echo "$name: cycle $cycle done" >&2
  done
  "$build/controller/gaptrain" job "$job" --json >"$work/$name.json"
  scancel "$job"
  wait_for 120 "$name: job $job ended" bash -c "! squeue -h -j $job 2>/dev/null | grep -q ."
}

run_variant helper -- /usr/bin/python3 "$example" --checkpoint "$work/ckpt-helper" \
  --epochs 100000 --step-sleep 0.05
run_variant torchrun --torchrun "$example" --checkpoint "$work/ckpt-torchrun" \
  --epochs 100000 --step-sleep 0.05 --checkpoint-every-steps 10
for name in helper torchrun; do
  echo "== $name"
  python3 "$repo/tests/bench/resize_stalls.py" "$work/$name.json" | grep -v '^/'
done
