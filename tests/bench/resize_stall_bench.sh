#!/usr/bin/env bash
# The training stall of each resize of the PyTorch example (examples/pytorch-elastic) at several
# step lengths, on a private 8-node local cluster; optionally beside the same under torchrun
# (every worker restarted from its checkpoint, every 10 steps).
#
# usage: tests/bench/resize_stall_bench.sh BUILD_DIR [CYCLES] [--steps "S1 S2 ..."] [--torchrun]
#          [--gaptraind-config JSON]
#   (as root; CYCLES default 4; steps default "0.05 1 3": the example's --step-sleep; JSON keys
#   for gaptraind.json, e.g. '{"reclaim_grace_s": 1}')
#
# Each run: `gaptrain submit -N 1-4` of the example at one step length; once it trains on 4 nodes,
# CYCLES times a regular job of 6 nodes takes 2 of them (a reclaim), the training goes on at world
# size 2, the regular job is cancelled and the job grows back to 4. Then `gaptrain job ID --json`
# and tests/bench/resize_stalls.py: each resize's stall (the longest stretch without new samples
# around it, less the usual gap between progress points). It ends with one table, a row per step
# length: grow and reclaim count, p50 and max, and whether each meets its goal (grow <= 0.5 s,
# reclaim <= one step + 0.5 s), the regular jobs' start after their submission (p50, max), and
# the reclaims that took the kill path (a leaving worker killed: Slurm's "CANCELLED" or
# "Killed" for a step of the job, or "a worker was lost" from the helper, in the job's output).
# The jobs' views and outputs stay in the directory it names.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
build=$(realpath "${1:?usage: $0 BUILD_DIR [CYCLES] [--steps \"S1 S2 ...\"] [--torchrun]}")
shift
cycles=4
if [ $# -gt 0 ] && [[ $1 != --* ]]; then
  cycles=$1
  shift
fi
steps="0.05 1 3"
torchrun=false
config='{}'
while [ $# -gt 0 ]; do
  case $1 in
    --steps) steps=${2:?--steps needs a list of seconds, e.g. \"0.05 1 3\"}; shift 2 ;;
    --gaptraind-config) config=${2:?--gaptraind-config needs JSON}; shift 2 ;;
    --torchrun) torchrun=true; shift ;;
    *) echo "$0: unknown argument $1" >&2; exit 2 ;;
  esac
done
results=$(mktemp -d /tmp/gaptrain-stall-results.XXXXXX)
dir=$(mktemp -d /tmp/gaptrain-stalls.XXXXXX)
rmdir "$dir"  # local-cluster makes it
eval "$("$repo/scripts/local-cluster" start --dir "$dir" --nodes 8 --no-home-mode \
  --plugin "$build/plugin/spank_gaptrain.so" --gaptraind "$build/controller/daemon/gaptraind" \
  --gaptraind-config "$config")"
trap '"$repo/scripts/local-cluster" stop --dir "$dir" >/dev/null' EXIT
export GAPTRAIN_LAUNCH=$build/launcher/gaptrain-launch GAPTRAIN_PYTHON=/usr/bin/python3
export PYTHONPATH=$repo/python GLOO_SOCKET_IFNAME=lo
work=$dir/work
mkdir -p "$work"
example=$repo/examples/pytorch-elastic/train_digits.py

world_size_is() {  # world_size_is FILE N
  [ -s "$1" ] && [ "$(tail -n 1 "$1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["world_size"])')" = "$2" ]
}
regular_running() { [ "$(squeue -h -j "$1" -o %T 2>/dev/null)" = RUNNING ]; }
wait_for() {  # wait_for SECONDS WHAT CMD...
  local deadline=$((SECONDS + $1)) what=$2
  shift 2
  until "$@"; do
    ((SECONDS < deadline)) || { echo "timed out waiting for $what" >&2; exit 1; }
    sleep 0.1
  done
}

run_variant() {  # run_variant NAME STEP_S SUBMIT-ARGS...: writes $results/NAME.json and NAME.out
  local name=$1 step_s=$2 job progress regular cycle settle t0
  shift 2
  # Train a while at each size: at least 5 s and two steps.
  settle=$(python3 -c "print(max(5.0, 2 * $step_s))")
  job=$("$build/controller/gaptrain" submit --parsable -N 1-4 --cost 1:1 -D "$work" \
    -o "$work/%j.out" -t 60 --export=ALL "$@")
  progress=$work/.gaptrain/$job/progress.jsonl
  wait_for 600 "$name: world size 4" world_size_is "$progress" 4
  for cycle in $(seq "$cycles"); do
    t0=$(date +%s.%N)
    regular=$(sbatch --parsable -p regular -N 6 -t 5 -o /dev/null --wrap 'sleep 600')
    wait_for 600 "$name cycle $cycle: regular job $regular running" regular_running "$regular"
    echo "$(date +%s.%N) - $t0" | bc >>"$results/$name.starts"
    wait_for 600 "$name cycle $cycle: world size 2" world_size_is "$progress" 2
    sleep "$settle"
    scancel "$regular"
    wait_for 600 "$name cycle $cycle: world size 4" world_size_is "$progress" 4
    sleep "$settle"
    echo "$name: cycle $cycle done" >&2
  done
  "$build/controller/gaptrain" job "$job" --json >"$results/$name.json"
  # The output as the cycles left it: what the bench's own scancel prints is no reclaim's.
  cp "$work/$job.out" "$results/$name.out"
  scancel "$job"
  wait_for 120 "$name: job $job ended" bash -c "! squeue -h -j $job 2>/dev/null | grep -q ."
  cp "$work/$job.out" "$results/$name.full.out"
}

helper_rows=()
torchrun_rows=()
for step_s in $steps; do
  run_variant "helper-$step_s" "$step_s" -- /usr/bin/python3 "$example" \
    --checkpoint "$work/ckpt-helper-$step_s" --epochs 100000 --step-sleep "$step_s"
  helper_rows+=("$step_s=$results/helper-$step_s.json")
  if $torchrun; then
    run_variant "torchrun-$step_s" "$step_s" --torchrun "$example" \
      --checkpoint "$work/ckpt-torchrun-$step_s" --epochs 100000 --step-sleep "$step_s" \
      --checkpoint-every-steps 10
    torchrun_rows+=("$step_s=$results/torchrun-$step_s.json")
  fi
done
for json in "$results"/*.json; do
  python3 "$repo/tests/bench/resize_stalls.py" "$json" | grep -v '^ *[a-z]* *n=' || true
done
echo
echo "== the helper (in-process regroups), $cycles reclaim/grow cycles a step length"
python3 "$repo/tests/bench/resize_stalls.py" --table "${helper_rows[@]}" || true
if $torchrun; then
  echo
  echo "== torchrun (every worker restarted from its checkpoint)"
  python3 "$repo/tests/bench/resize_stalls.py" --table "${torchrun_rows[@]}" || true
fi
echo
echo "(the jobs' views and outputs: $results)"
