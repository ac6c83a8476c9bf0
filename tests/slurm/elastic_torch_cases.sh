# Real trainings: the PyTorch example, the ported third-party scripts, the goodput batch, notices
# to a checkpoint, torchrun scripts (their restarts and the copies guard), a clock jump.
# Sourced by run_elastic_case.sh (its helpers and the case's `work` in scope).
# shellcheck shell=bash
# shellcheck disable=SC2154 # launch, work, here and the cluster's variables are run_elastic_case.sh's

# The launcher of JOB (running) said in OUT that it dropped each NODE.
launcher_dropped() {  # launcher_dropped JOB OUT NODE...
  local job=$1 out=$2 node
  shift 2
  job_state_is "$job" RUNNING || return 1
  for node in "$@"; do
    grep -q "^gaptrain-launch [0-9:]*: $node was taken back from the job" "$out" || return 1
  done
}

# JOB's training steps run on N distinct nodes (squeue -s), whatever gaptraind says.
steps_on_nodes_left() {  # steps_on_nodes_left JOB N
  job_state_is "$1" RUNNING &&
    [ "$(squeue -h -s -o '%j' | sed -n 's/^gaptrain\.\([^.]*\)\..*/\1/p' | sort -u | wc -l)" = "$2" ]
}

# The world size in the last line of a progress file the helper writes.
world_size_is() {  # world_size_is FILE N
  [ -s "$1" ] &&
    [ "$(tail -n 1 "$1" | python3 -c 'import json, sys; print(json.load(sys.stdin)["world_size"])')" = "$2" ]
}

torch_or_skip() {  # torch_or_skip MODULES: exit 77 when Debian's python3 cannot import them
  if ! /usr/bin/python3 -c "import $1" 2>/dev/null; then
    echo "SKIP: /usr/bin/python3 cannot import $1" >&2
    exit 77
  fi
}

# `gaptrain submit` as a user runs it, with the launcher and the helper of this build; the job
# is cancelled at exit like those of case_lib.sh's submit (a failing case leaves nothing running).
gaptrain_submit() {  # gaptrain_submit ARGS...: prints the job id
  local id
  # Debian's python3 (with torch) for --torchrun: root's python3 on PATH may be another.
  id=$(GAPTRAIN_LAUNCH=$launch GAPTRAIN_PYTHON=/usr/bin/python3 PYTHONPATH=$PYTHON_DIR${PYTHONPATH:+:$PYTHONPATH} \
    "$GAPTRAIN_CLI" submit --parsable -D "$work" -o "$work/%j.out" --open-mode=append -t 30 \
    --export=ALL,GLOO_SOCKET_IFNAME=lo "$@") || fail "gaptrain submit $* failed"
  id=${id%%;*}
  # shellcheck disable=SC2154 # case_lib.sh's list of the jobs to cancel at exit
  echo "$id" >>"$jobs_file"
  echo "$id"
}

# One reclaim and one grow of a running job on 4 nodes: a regular job of 6 nodes takes 2 of
# them (it starts within max_start_s), the training goes on at world size 2 (`shrunk`
# succeeds), the regular job is cancelled, the job grows back to 4 and trains there (`regrown`).
reclaim_and_grow_back() {  # reclaim_and_grow_back JOB SHRUNK-CHECK REGROWN-CHECK
  local batch_host regular
  batch_host=$(job_field "$1" BatchHost)
  regular=$(regular_starts_quickly 6 290 "$1" "$batch_host")
  # shellcheck disable=SC2086 # CHECK is a command and its arguments, split on purpose
  poll 300 "training goes on at world size 2 while shrunk" $2
  scancel "$regular"
  poll 60 "regular job $regular cancelled" job_state_is "$regular" CANCELLED
  poll 120 "elastic job $1 back on 4 nodes" elastic_at "$1" 4
  # shellcheck disable=SC2086
  poll 300 "training back at world size 4" $3
}

# The wall clock of slurmctld's host steps while the example trains (an NTP step, a resumed VM):
# back an hour, forward an hour (to the true time), forward two minutes; monotonic clocks do not
# move. Only on a cluster whose daemons run under libfaketime (tests/bench/clock_jump_probe.sh
# sets CLOCK_JUMP_SPEC, the file libfaketime reads the offset from at every call); skipped else.
# The case and its jobs run without it (Python's time.sleep fails under it with EINVAL). While
# the clock is behind, slurmctld schedules nothing new (its own rate limits compare with times
# now in the future), so the case asks only that gaptraind shrinks the job for the regular job
# then, and that the regular job starts once the clock is right again. Throughout: the job keeps
# its lease (no TIMEOUT), trains every sample once and ends COMPLETED.
case_clock_jump() {
  local example=${EXAMPLE_DIR:?EXAMPLE_DIR is not set} job epochs=60 progress out spec regular
  spec=${CLOCK_JUMP_SPEC:-}
  { [ -n "$spec" ] && [ -w "$spec" ]; } || { note "not a cluster under libfaketime: skipped"; exit 77; }
  torch_or_skip "torch, sklearn"
  echo "+0" >"$spec"
  job=$(gaptrain_submit -N 1-4 -- /usr/bin/python3 "$example/train_digits.py" \
    --checkpoint "$work/ckpt" --epochs $epochs --step-sleep 0.05)
  progress=$work/.gaptrain/$job/progress.jsonl
  out=$work/$job.out
  poll 60 "elastic job $job RUNNING" job_state_is "$job" RUNNING
  poll 300 "training at world size 4" world_size_is "$progress" 4
  note "clock back one hour; TimeLimit $(job_field "$job" TimeLimit)"
  echo "-1h" >"$spec"
  sleep 5
  regular=$(submit -p regular -N 6 -t 5 --wrap 'sleep 600')
  poll 120 "training shrunk to world size 2 for regular job $regular" world_size_is "$progress" 2
  sleep 20
  job_state_is "$job" RUNNING || fail "job $job did not survive the clock going back"
  note "clock forward one hour (to the true time); TimeLimit $(job_field "$job" TimeLimit)"
  echo "+0" >"$spec"
  poll 120 "regular job $regular RUNNING once the clock is right" job_state_is "$regular" RUNNING
  scancel "$regular"
  poll 120 "elastic job $job back on 4 nodes" elastic_at "$job" 4
  note "clock forward two minutes; TimeLimit $(job_field "$job" TimeLimit)"
  echo "+2m" >"$spec"
  sleep 20
  reclaim_and_grow_back "$job" "world_size_is $progress 2" "world_size_is $progress 4"
  note "TimeLimit $(job_field "$job" TimeLimit)"
  poll 900 "elastic job $job COMPLETED (training finished)" job_state_is "$job" COMPLETED
  [ "$(tail -n 1 "$progress" | python3 -c 'import json, sys; print(json.load(sys.stdin)["samples_done"])')" = \
    $((epochs * 1797)) ] || fail "not every sample trained once: $(tail -n 1 "$progress")"
  ! grep -q "Traceback" "$out" || fail "a traceback in the job's output: $(grep -A5 Traceback "$out" | head -n 30)"
  echo "+0" >"$spec"
}

# The example as a user submits it, in one line; a reclaim and a grow while it
# trains (in-process regroups: no worker restarted); every sample of every epoch counted once.
case_pytorch() {
  local example=${EXAMPLE_DIR:?EXAMPLE_DIR is not set} job epochs=80 progress out
  torch_or_skip "torch, sklearn"
  # No --cost: gaptraind assumes 30 s a resize until it has measured the job's own.
  job=$(gaptrain_submit -N 1-4 -- /usr/bin/python3 "$example/train_digits.py" \
    --checkpoint "$work/ckpt" --epochs $epochs --step-sleep 0.05)
  progress=$work/.gaptrain/$job/progress.jsonl
  out=$work/$job.out
  poll 60 "elastic job $job RUNNING" job_state_is "$job" RUNNING
  poll 120 "elastic job $job on 4 nodes" elastic_at "$job" 4
  poll 300 "training at world size 4" world_size_is "$progress" 4
  reclaim_and_grow_back "$job" "world_size_is $progress 2" "world_size_is $progress 4"
  poll 120 "job $job's curve learned from its progress" curve_source_is "$job" learned
  note "learned: $(query_status "job($job)['curve']['points']")"
  poll 60 "job $job's grow and shrink costs learned below the 30 s assumed" costs_learned_below "$job" 30
  note "learned costs: $(query_status "'%.2f s a grow, %.2f s a shrink' % (job($job)['up_cost_s'], job($job)['down_cost_s'])")"
  poll 600 "elastic job $job COMPLETED (training finished)" job_state_is "$job" COMPLETED
  [ "$(tail -n 1 "$progress" | python3 -c 'import json, sys; print(json.load(sys.stdin)["samples_done"])')" = \
    $((epochs * 1797)) ] || fail "not every sample trained once: $(tail -n 1 "$progress")"
  { grep -q "grew onto" "$out" && grep -q "back to the cluster" "$out"; } ||
    fail "the launcher did not say what happened: $(grep gaptrain-launch "$out" | tail -n 20)"
  grep -q "left the job after step" "$out" || fail "no worker left cleanly: $(tail -n 40 "$out")"
  ! grep -q "Traceback" "$out" || fail "a traceback in the job's output: $(grep -A5 Traceback "$out" | head -n 30)"
  ! grep -q "asked to be started again\|failed (" "$out" ||
    fail "a worker restarted or failed: $(grep -E 'started again|failed \(' "$out")"
  note "the job's output: $(wc -l <"$out") lines, $(grep -c '^gaptrain' "$out") from gaptrain"
  job_view_shows_the_run "$job"
}

# The third-party scripts of examples/ported, on ElasticJob, run as observe_run.py observes them
# (python/tests: what each worker trained, its carried state), through a reclaim and a grow back;
# compared with the same script run on one worker on this machine (run_alone).
run_alone() {  # run_alone DIR SCRIPT ARGS...: SCRIPT in DIR as the only worker of a one-node job
  local dir=$1 port
  shift
  port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  echo '{"job_id": 1, "generation": 1, "nodes": ["alone"]}' >"$dir/job.json"
  (cd "$dir" && SLURMD_NODENAME=alone GAPTRAIN_MASTER_ADDR=alone GAPTRAIN_JOB_ID=1 \
    GAPTRAIN_RDZV_HOST=127.0.0.1 GAPTRAIN_RDZV_PORT=$port GAPTRAIN_JOB_FILE=$dir/job.json \
    GAPTRAIN_STORE_SECRET=$(od -An -N16 -tx1 /dev/urandom | tr -d " \n") \
    CHECKPOINT_DIR=$dir/ckpt PYTHONPATH=$PYTHON_DIR timeout 600 /usr/bin/python3 "$@" >"$dir/out" 2>&1) ||
    fail "the run on one worker failed: $(tail -n 20 "$dir/out")"
}

checked_observed() {  # checked_observed PREFIX SAMPLES WHOLE_EPOCHS WORLDS...: observed.py's verdict
  local verdict
  verdict=$(/usr/bin/python3 "$PYTHON_DIR/tests/observed.py" "$@" 2>&1) ||
    fail "what the workers trained: $verdict (observe_run.py's logs $1.*)"
  note "$verdict"
}

# Whether a worker logged a step it completed at world size WORLD, numbered above every step
# completed at AFTER_WORLD if given (observed.py --completed-at). Not the progress file: its
# first line at a new size comes at the regroup, before any step there, and a reclaim then (the
# time-sequence script's L-BFGS steps take 5-8 s under load) left no step at 4 before it.
observed_at() {  # observed_at PREFIX WORLD [AFTER_WORLD]
  /usr/bin/python3 "$PYTHON_DIR/tests/observed.py" --completed-at "$@"
}

# Submits observe_run.py SCRIPT ARGS -N 1-4 (setting `job`, `out`, `progress`), reclaims 2 of its
# 4 nodes once it completed a step on 4 and gives them back once it completed one on 2; returns
# once it COMPLETED, its output clean of failures.
ported_through_reclaim_and_grow() {  # ported_through_reclaim_and_grow STEP_SLEEP SCRIPT ARGS...
  local step_sleep=$1 logs=$work/observed
  shift
  job=$(CHECKPOINT_DIR=$work/ckpt OBSERVE_LOG=$logs OBSERVE_STEP_SLEEP=$step_sleep \
    gaptrain_submit -N 1-4 -- /usr/bin/python3 "$PYTHON_DIR/tests/observe_run.py" "$@")
  out=$work/$job.out
  progress=$work/.gaptrain/$job/progress.jsonl
  poll 60 "elastic job $job RUNNING" job_state_is "$job" RUNNING
  poll 120 "elastic job $job on 4 nodes" elastic_at "$job" 4
  poll 300 "a step completed at world size 4" observed_at "$logs" 4
  reclaim_and_grow_back "$job" "observed_at $logs 2 4" "observed_at $logs 4 2"
  poll 600 "elastic job $job COMPLETED (training finished)" job_state_is "$job" COMPLETED
  grep -q "left the job" "$out" || fail "no worker left: $(grep gaptrain "$out" | tail -n 20)"
  ! grep -qE "Traceback|asked to be started again|failed \(|did not answer|did not form" "$out" ||
    fail "a failure in the job's output: $(grep -E -A3 'Traceback|started again|failed \(|did not' "$out" | head -n 20)"
  note "$(grep -E 'left the job|redoing|grew on|regrouped on' "$out" | head -n 6 | tr '\n' ';')"
}

case_ported_regression() {
  local ported=${EXAMPLE_DIR:?EXAMPLE_DIR is not set}/../ported job out progress
  torch_or_skip torch
  mkdir -p "$work/alone"
  run_alone "$work/alone" "$ported/regression/main_elastic.py"
  ported_through_reclaim_and_grow 0.25 "$ported/regression/main_elastic.py"
  # 100 batches of 32 an epoch; it stops within its fifth epoch (448 steps alone).
  checked_observed "$work/observed" 3200 4 4 2 4
  python3 - "$work/alone/out" "$out" <<'PY' || fail "the learned function differs from the run on one worker"
import re, sys
def learned(path):
    line = re.findall(r"==> Learned function:\s*(.*)", open(path).read())[-1]
    return [float(v) for v in re.findall(r"[+-]\d+\.\d+", line)]
alone, elastic = learned(sys.argv[1]), learned(sys.argv[2])
print(f"learned alone {alone}, elastic {elastic}", file=sys.stderr)
assert len(alone) == len(elastic) == 5 and all(abs(a - e) <= 0.05 for a, e in zip(alone, elastic))
PY
}

sine_waves() {  # sine_waves DIR: pytorch/examples' waves, cut to 11 of 40 points (L-BFGS on all
  # 100 of 1000 points takes minutes a step on a CPU)
  (cd "$1" && /usr/bin/python3 "$ported/time_sequence_prediction/generate_sine_wave.py" &&
    /usr/bin/python3 -c "import torch; torch.save(torch.load('traindata.pt')[:11, :40], open('traindata.pt', 'wb'))") ||
    fail "cannot make the sine waves in $1"
}

case_ported_time_sequence() {
  local ported=${EXAMPLE_DIR:?EXAMPLE_DIR is not set}/../ported job out progress steps=16 losses
  torch_or_skip "torch, matplotlib"
  mkdir -p "$work/alone"
  sine_waves "$work/alone"
  sine_waves "$work"
  run_alone "$work/alone" "$ported/time_sequence_prediction/train_elastic.py" --steps $steps
  ported_through_reclaim_and_grow 0 "$ported/time_sequence_prediction/train_elastic.py" --steps $steps
  # 8 training waves a step, each step an epoch of the job.
  checked_observed "$work/observed" 8 $steps 4 2 4
  # The test losses alone and elastic over the second half of the steps (after every resize):
  # the same order, not the same values. L-BFGS ends its inner iterations on a threshold, so the
  # sums' order on 4 or 2 workers can change its path from the second step (test losses there
  # 1.31, 1.50 and 1.41e-3 in three runs here, 1.41e-3 alone); at the plateau of the last steps
  # (35-40x below the first, going up and down by 15%) they ended 1.09-1.18e-4 against 1.01e-4
  # alone. And at lr 0.8 without a line search L-BFGS may blow up on that plateau: in one CI run
  # the elastic run's steps 0-12 tracked the run alone (1.12e-4 at step 12), then 2.6e36 at step
  # 13 on every rank, no resize near it (the example's own loss explodes at times at that rate:
  # pytorch/examples issue 247, "the loss suddenly jumps up and stays high"). So the medians of
  # the second half's losses are compared: a state lost or gradients scaled at a resize shows in
  # most of the steps after it; a late blow-up in a few steps (of either run) is the optimizer's.
  losses=$(python3 - "$work/alone/out" "$out" <<'PY' 2>&1
import math, re, statistics, sys
def test_losses(path):
    # One a step: every rank prints the same (checked_observed: the same state on every rank).
    return list(dict.fromkeys(float(v) for v in re.findall(r"test loss: (\S+)", open(path).read())))
def second_half(losses):
    return statistics.median(losses[len(losses) // 2:])
alone, elastic = (test_losses(p) for p in sys.argv[1:])
alone_half, elastic_half = second_half(alone), second_half(elastic)
said = (f"median test loss of the second half alone {alone_half:.3g} (first {alone[0]:.3g}), "
        f"elastic {elastic_half:.3g}; last alone {alone[-1]:.3g}, elastic {elastic[-1]:.3g}")
if elastic_half > alone[0] / 10:
    sys.exit(f"{said}: the elastic run did not learn (not 10x below the first)")
if abs(math.log(elastic_half / alone_half)) > math.log(3):
    sys.exit(f"{said}: not within 3x")
print(said)
PY
  ) || fail "the test loss differs from the run on one worker: $losses"
  note "$losses"
}

# The example submitted with a batch range (`--batch 64:1024`) is told by gaptraind the
# global batch for its nodes and trains at it: at 2 nodes beside a regular job, then, that job
# ended and the example grown to 4, at the batch for 4 with its learning-rate factor; every sample
# once; the noise scale it reports (tuned * grad_var / grad_sqr) within 2x of the one computed
# offline from every sample's gradient at its last checkpoint (tests/slurm/digits_noise_scale.py).
# --lr 0.002 keeps the model far from convergence through the 15 epochs: there |G|^2 (grad_sqr,
# 0.06-0.15) is well above the estimator's noise over its ~20 steps of memory (about 0.02 at a
# global batch of 80), and the reported and offline scales agreed within 4% in three runs (75-78
# against 78.5). At --lr 0.01 the model converged, |G|^2 fell to about 0.001 by the end, below
# that noise, and the last estimate ranged 0.5-10x the offline one (9,979 against 1,057 in a CI
# run): the comparison measured the noise, not the estimator. The bugs this catches are at least
# 2x: a trace or norm scaled by the workers or by the local batch instead of the global one.
noise_scale_source_is() {  # noise_scale_source_is JOB SOURCE
  [ "$(query_status "job($1)['noise_scale_source'] if job($1) else 'gone'")" = "$2" ]
}

case_goodput() {
  local example=${EXAMPLE_DIR:?EXAMPLE_DIR is not set} blocker job out progress epochs=15
  local reported offline
  torch_or_skip "torch, sklearn"
  blocker=$(submit -p regular -N 6 -t 10 --wrap 'sleep 600')
  poll 60 "regular job $blocker RUNNING" job_state_is "$blocker" RUNNING
  job=$(gaptrain_submit -N 1-4 --cost 1:1 --batch 64:1024 -- /usr/bin/python3 \
    "$example/train_digits.py" --checkpoint "$work/ckpt" --epochs $epochs --lr 0.002 --lr-rule sqrt \
    --step-sleep 0.05)
  out=$work/$job.out
  progress=$work/.gaptrain/$job/progress.jsonl
  poll 60 "elastic job $job RUNNING" job_state_is "$job" RUNNING
  poll 300 "training at world size 2" world_size_is "$progress" 2
  poll 120 "the batch gaptraind chose for 2 workers" grep -q "batch: global [0-9]* (.* x 2 worker(s))" "$out"
  scancel "$blocker"
  poll 300 "training at world size 4" world_size_is "$progress" 4
  poll 120 "the batch for 4 workers" grep -q "batch: global [0-9]* (.* x 4 worker(s)), learning rate x" "$out"
  poll 120 "gaptraind to learn job $job's noise scale from its reports" noise_scale_source_is "$job" learned
  note "the job said: $(grep -o 'batch: global.*' "$out" | tail -n 2 | tr '\n' ';') gaptraind's noise scale: $(query_status "job($job)['noise_scale']")"
  poll 900 "elastic job $job COMPLETED (training finished)" job_state_is "$job" COMPLETED
  [ "$(tail -n 1 "$progress" | python3 -c 'import json, sys; print(json.load(sys.stdin)["samples_done"])')" = \
    $((epochs * 1797)) ] || fail "not every sample trained once: $(tail -n 1 "$progress")"
  reported=$(python3 -c '
import json, sys
last = [d for d in map(json.loads, open(sys.argv[1])) if "grad_sqr" in d][-1]
print(64 * last["grad_var"] / last["grad_sqr"])' "$progress") || fail "no noise measurement in $progress"
  offline=$(/usr/bin/python3 "$here/digits_noise_scale.py" "$work/ckpt") || fail "the offline noise scale failed"
  note "noise scale: reported $reported, offline $offline"
  (($(echo "$reported <= 2 * $offline && $offline <= 2 * $reported" | bc))) ||
    fail "the reported noise scale $reported is not within 2x of the offline $offline"
}

# A regular job planned (by backfill) on a node of the example's job: the launcher
# passes the notice on before that node is drained, and the example checkpoints on it; the
# regular job starts when its blocker ends, as without notices.
case_notice_checkpoint() {
  local example=${EXAMPLE_DIR:?EXAMPLE_DIR is not set} blocker job regular out progress
  local noticed drained
  # shellcheck disable=SC2034 # progress: read by world_size_is above
  torch_or_skip "torch, sklearn"
  blocker=$(submit -p regular -N 6 -t 10 --wrap 'sleep 600')
  poll 60 "regular job $blocker RUNNING" job_state_is "$blocker" RUNNING
  job=$(gaptrain_submit -N 1-4 --cost 1:1 --notice 600 -- /usr/bin/python3 \
    "$example/train_digits.py" --checkpoint "$work/ckpt" --epochs 1000 --step-sleep 0.05)
  out=$work/$job.out
  progress=$work/.gaptrain/$job/progress.jsonl
  poll 60 "elastic job $job RUNNING" job_state_is "$job" RUNNING
  poll 60 "elastic job $job on the 2 idle nodes" elastic_at "$job" 2
  poll 300 "training at world size 2" world_size_is "$progress" 2
  regular=$(submit -p regular -N 7 -t 2 --wrap 'sleep 2')
  poll 60 "the launcher to pass the notice on" grep -q "notice: n[0-9]* will be taken back" "$out"
  poll 60 "the example to checkpoint on the notice" grep -q "checkpoint saved at step [0-9]* (notice)" "$out"
  ! grep -q "back to the cluster" "$out" ||
    fail "job $job was drained before the regular job could start: $(grep gaptrain "$out" | tail -n 8)"
  starts_when_its_blocker_ends "$blocker" "$regular"
  # The node goes: a shrink to the batch host, or (Slurm 24.11 was seen to, its blocker's nodes
  # still completing) a requeue of the whole job, which then resumes from the checkpoint.
  poll 120 "the job to give its node back or be requeued" \
    grep -qE "back to the cluster|got SIGTERM: stopping every step" "$out"
  noticed=$(grep -n "checkpoint saved at step [0-9]* (notice)" "$out" | head -n 1 | cut -d: -f1)
  drained=$(grep -nE "back to the cluster|got SIGTERM: stopping every step" "$out" | head -n 1 | cut -d: -f1)
  ((noticed < drained)) || fail "the notice checkpoint (line $noticed) came after the drain (line $drained)"
  note "$(grep -E 'notice|back to the cluster' "$out" | head -n 4 | tr '\n' ';')"
  scancel "$job"
}

# `gaptrain job ID --json` after the job ended shows its reclaim and grows with
# times, and its progress as reported (at least one point a second while it trained); the
# plot is drawn; with PrivateData=jobs another user is refused the view, root is not.

job_view_shows_the_run() {  # job_view_shows_the_run JOB
  local json=$work/job-$1.json
  "$GAPTRAIN_CLI" job "$1" --json >"$json" || fail "gaptrain job $1 --json failed"
  "$GAPTRAIN_CLI" job "$1" --plot "$work/job-$1.svg" >"$work/job-$1.txt" ||
    fail "gaptrain job $1 --plot failed"
  grep -q "<svg" "$work/job-$1.svg" || fail "no SVG drawn for job $1"
  python3 - "$json" <<'PY' || fail "gaptrain job $1 --json: $(head -c 2000 "$json")"
import json, sys
view = json.load(open(sys.argv[1]))
kinds = [r["kind"] for r in view["resizes"]]
assert "reclaim" in kinds and kinds.count("grow") >= 2, kinds
assert all(r["time"] > 1.6e9 and r.get("reason") for r in view["resizes"]), view["resizes"]
progress = view["progress"]
times = [t for t, _ in progress]
done = [s for _, s in progress]
assert done == sorted(done) and len(progress) >= 20, progress[:5]
gaps = sorted(b - a for a, b in zip(times, times[1:]) if b > a)
# At least one point a second while it trained (the median: a loaded machine may stall a step).
assert gaps[len(gaps) // 2] <= 1.0, f"median gap {gaps[len(gaps) // 2]:.2f} s between progress points"
assert view["node_hours"] > 0, view["node_hours"]
print(f"{len(progress)} progress points over {times[-1] - times[0]:.0f} s (gaps: median "
      f"{gaps[len(gaps) // 2]:.2f} s, max {gaps[-1]:.2f} s), resizes {kinds}")
PY
  note "job $1's view: $(head -n 3 "$work/job-$1.txt" | tr '\n' ' ')"
  cleanup_steps+=("sed -i '/^PrivateData=/d' '$SLURM_CONF'; scontrol reconfigure")
  echo "PrivateData=jobs" >>"$SLURM_CONF"
  scontrol reconfigure
  # gaptraind reads slurmctld's configuration at a full poll (every 10 s).
  poll 60 "nobody to be refused root's job $1" nobody_refused_job "$1"
  "$GAPTRAIN_CLI" job "$1" >/dev/null || fail "root was refused job $1 under PrivateData=jobs"
  sed -i '/^PrivateData=/d' "$SLURM_CONF"
  scontrol reconfigure
}

nobody_refused_job() {  # nobody_refused_job JOB: nobody's `gaptrain job JOB` says it is not theirs
  local err=$GAPTRAIN_CLUSTER_DIR/nobody-job.err
  ! setpriv --reuid=65534 --regid=65534 --clear-groups -- "$GAPTRAIN_CLI" job "$1" >/dev/null 2>"$err" &&
    grep -q "not yours" "$err"
}

# An ordinary torchrun script (snapshot each epoch, resumes from it), submitted
# with --torchrun and nothing else; a reclaim and a grow; it finishes every epoch.
case_torchrun() {
  local script=${EXAMPLE_DIR:?}/../torchrun-ddp/train_ddp.py job epochs=50 out
  torch_or_skip torch
  job=$(gaptrain_submit -N 1-4 --cost 1:1 --torchrun "$script" --snapshot "$work/snapshot.pt" \
    --epochs $epochs --step-sleep 0.1)
  out=$work/$job.out
  poll 60 "elastic job $job RUNNING" job_state_is "$job" RUNNING
  poll 120 "elastic job $job on 4 nodes" elastic_at "$job" 4
  poll 300 "an epoch at world size 4" grep -q "world size 4: snapshot saved" "$out"
  reclaim_and_grow_back "$job" "last_epoch_at $out 2" "last_epoch_at $out 4"
  poll 600 "elastic job $job COMPLETED (training finished)" job_state_is "$job" COMPLETED
  grep -q "epoch $((epochs - 1)) done" "$out" || fail "the last epoch never finished: $(tail -n 20 "$out")"
  # It forms one group of the job's size: no warning about copies.
  ! grep -q "independent copies\|formed a process group of" "$out" ||
    fail "a script that forms its group was warned about: $(grep 'gaptrain.torchrun: warning' "$out" | head -n 2)"
}

# A torchrun script that crashes at once, every time, on a job of 2 nodes: each node's agent
# restarts it --max-restarts times (3) and gives up; the job ends FAILED, the script's error and
# the reason in its output, the script tried at most 4 times a node (not restarted forever).
case_torchrun_crash() {
  local job out script=$work/crash.py tries
  torch_or_skip torch
  cat >"$script" <<PY
with open("$work/tries", "a") as f:
    f.write("try\\n")
raise RuntimeError("a deterministic crash")
PY
  job=$(gaptrain_submit -N 2 --cost 1:1 --torchrun "$script")
  out=$work/$job.out
  poll 600 "elastic job $job FAILED" job_state_is "$job" FAILED
  grep -q "a deterministic crash" "$out" || fail "the script's error is not in the output: $(tail -n 30 "$out")"
  grep -q "failed 4 times in a row on n[0-9]* .*giving up" "$out" ||
    fail "no node said it gave up: $(grep gaptrain "$out" | tail -n 20)"
  grep -q "gave up (exit 76" "$out" || fail "the launcher did not say why the job fails: $(grep gaptrain-launch "$out" | tail -n 10)"
  tries=$(grep -c try "$work/tries")
  note "the script ran $tries times before the job failed"
  ((tries >= 4 && tries <= 8)) || fail "the script ran $tries times (expected 4 to 8: 1 + 3 restarts on each of 2 nodes)"
}

# An ordinary script that never calls init_process_group, submitted with --torchrun on 2 nodes:
# it runs as 2 independent copies, and the job's output says so.
case_torchrun_copies() {
  local job out script=$work/copies.py
  torch_or_skip torch
  printf 'import time\nprint("training alone")\ntime.sleep(2)\n' >"$script"
  job=$(gaptrain_submit -N 2 --cost 1:1 --torchrun "$script")
  out=$work/$job.out
  poll 300 "elastic job $job COMPLETED" job_state_is "$job" COMPLETED
  [ "$(grep -c "warning: the script runs on 2 workers and has not called torch.distributed.init_process_group: they are 2 independent copies" "$out")" = 1 ] ||
    fail "not one warning about independent copies (rank 0's): $(tail -n 30 "$out")"
  note "$(grep -o 'gaptrain.torchrun: warning: .\{60\}' "$out" | head -n 1)"
}
