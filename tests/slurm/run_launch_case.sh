#!/usr/bin/env bash
# gaptrain-launch against the real local Slurm cluster of the `slurm_cluster` ctest fixture.
#   run_launch_case.sh ENV_SH GAPTRAIN_LAUNCH CASE
# ENV_SH is the fixture's env.sh; GAPTRAIN_LAUNCH the launcher binary; GAPTRAIN_CLI (set by
# CMake) the `gaptrain` binary. Exits 0 on success, 1 on failure, 77 (ctest: skipped) when not
# root or when the cluster runs without the plugin and gaptraind. Every wait polls a condition
# with a deadline.
set -euo pipefail

env_sh=${1:?usage: $0 ENV_SH GAPTRAIN_LAUNCH CASE}
launch=${2:?usage: $0 ENV_SH GAPTRAIN_LAUNCH CASE}
case_name=${3:?usage: $0 ENV_SH GAPTRAIN_LAUNCH CASE}

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=case_lib.sh
source "$here/case_lib.sh"
case_setup "$env_sh"
require_gaptrain

# The case's files (job output, the steps' output, flag, progress and host files).
work=$GAPTRAIN_CLUSTER_DIR/launch-$case_name
rm -rf "$work"
mkdir -p "$work"
# shellcheck disable=SC2034 # read by case_lib.sh's submit
submit_args=(-D "$work" -o "$work/job.out")
job_context() { echo "its output: $(cat "$work/job.out" 2>/dev/null)"; }

lines_in() { [ -f "$1" ] && [ "$(wc -l <"$1")" -ge "$2" ]; }
lines_matching() { [ -f "$1" ] && [ "$(grep -c -- "$2" "$1")" -ge "$3" ]; }  # FILE REGEX N

# The elastic job's samples_done and whether reported_at is set, as "SAMPLES REPORTED".
elastic_progress() {
  query_status "next((f\"{j['samples_done']} {j['reported_at'] is not None}\" for j in s['elastic_jobs'] if j['job_id'] == $1), 'none')"
}
progress_is() { [ "$(elastic_progress "$1")" = "$2 True" ]; }

# Two gaptrain steps of the job at once, one per node (squeue -s: NAME NODELIST).
steps_on_both() {
  local steps
  steps=$(squeue -h -s -j "$1" -o '%j %N' | grep '^gaptrain\.' | awk '{print $2}' | sort -u | wc -l)
  [ "$steps" -eq 2 ]
}

# A 2-node elastic job whose batch script is gaptrain-launch runs one step per node, at the same
# time, each seeing GAPTRAIN_NNODES=2 and the batch host as GAPTRAIN_MASTER_ADDR; the host file
# lists both nodes, batch host first; the training's progress reaches `gaptrain status`; and when
# the steps exit 0 the job COMPLETES.
case_launch_two_nodes() {
  local job out=$work/steps.out flag=$work/flag progress=$work/progress.jsonl batch_host hosts
  # Each step writes its line, the batch host's step writes progress, then all wait for the flag.
  job=$(submit -p elastic -N 2 --exclusive --elastic=1-2 -t 3 \
    --wrap "exec $launch --poll-ms 200 --progress-file $progress -- bash -c '
      echo \"\$SLURMD_NODENAME \$GAPTRAIN_NNODES \$GAPTRAIN_MASTER_ADDR \$GAPTRAIN_HOSTFILE\" >>$out
      [ \"\$SLURMD_NODENAME\" = \"\$GAPTRAIN_MASTER_ADDR\" ] && echo \"{\\\"samples_done\\\": 4096}\" >>$progress
      for i in \$(seq 600); do [ -e $flag ] && exit 0; sleep 0.1; done; exit 1'")
  note "job $job submitted"
  poll 60 "job $job RUNNING" job_state_is "$job" RUNNING
  poll 60 "a line from each node's step in $out" lines_in "$out" 2
  poll 30 "two gaptrain steps of job $job at once (squeue -s)" steps_on_both "$job"
  batch_host=$(job_field "$job" BatchHost)
  local nodes
  nodes=$(scontrol show hostnames "$(job_field "$job" NodeList)" | sort | tr '\n' ' ')
  [ "$(awk '{print $1}' "$out" | sort | tr '\n' ' ')" = "$nodes" ] ||
    fail "steps ran on $(awk '{print $1}' "$out" | tr '\n' ' '), job has $nodes"
  awk -v m="$batch_host" '$2 != 2 || $3 != m { bad = 1 } END { exit bad }' "$out" ||
    fail "steps saw wrong GAPTRAIN_NNODES/GAPTRAIN_MASTER_ADDR (want 2 $batch_host): $(cat "$out")"
  hosts=$(awk 'NR == 1 {print $4}' "$out")
  [ "$hosts" = "$work/.gaptrain/$job/hosts" ] || fail "GAPTRAIN_HOSTFILE is $hosts"
  { [ "$(head -n1 "$hosts")" = "$batch_host" ] && [ "$(wc -l <"$hosts")" -eq 2 ]; } ||
    fail "host file $hosts: $(cat "$hosts")"
  poll 30 "gaptrain status to show job $job with samples_done 4096" progress_is "$job" 4096.0
  touch "$flag"
  poll 60 "job $job COMPLETED" job_state_is "$job" COMPLETED
  [ "$(job_field "$job" ExitCode)" = 0:0 ] || fail "job $job exit code $(job_field "$job" ExitCode)"
  grep -qF "the training finished; every step has ended" "$work/job.out" ||
    fail "launcher output: $(cat "$work/job.out")"
  [ ! -e "$hosts" ] || fail "the host file $hosts was left behind"
  note "steps: $(tr '\n' ';' <"$out") launcher: $(grep -c . "$work/job.out") lines of output"
}

# A step that keeps failing is restarted --max-restarts times, then the launcher gives up and
# the job FAILS (exit 1) instead of looping.
case_launch_failing_step() {
  local job out=$work/steps.out
  job=$(submit -p elastic -N 1 --exclusive --elastic=1-1 -t 3 \
    --wrap "exec $launch --poll-ms 200 --max-restarts 1 -- bash -c 'echo run >>$out; exit 3'")
  note "job $job submitted"
  poll 90 "job $job FAILED" job_state_is "$job" FAILED
  [ "$(job_field "$job" ExitCode)" = 1:0 ] || fail "job $job exit code $(job_field "$job" ExitCode)"
  [ "$(wc -l <"$out")" -eq 2 ] || fail "the step ran $(wc -l <"$out") times, want 2 (1 restart)"
  grep -qF "restart 1 of 1" "$work/job.out" || fail "no restart logged: $(cat "$work/job.out")"
  grep -qF "giving up" "$work/job.out" || fail "no give-up logged: $(cat "$work/job.out")"
  note "$(grep -F 'gaptrain-launch:' "$work/job.out" | tr '\n' ';')"
}

# scancel of the job: the launcher (SIGTERM) stops its steps, each step sees SIGTERM rather
# than a bare SIGKILL, and the job ends CANCELLED.
case_launch_scancel() {
  local job out=$work/steps.out
  job=$(submit -p elastic -N 2 --exclusive --elastic=1-2 -t 3 \
    --wrap "exec $launch --poll-ms 200 --grace-s 3 -- bash -c '
      trap \"echo \$SLURMD_NODENAME TERM >>$out; exit 0\" TERM
      echo \$SLURMD_NODENAME up >>$out
      while :; do sleep 0.1; done'")
  note "job $job submitted"
  poll 60 "both steps up" lines_in "$out" 2
  scancel "$job"
  poll 60 "job $job CANCELLED" job_state_is "$job" CANCELLED
  poll 30 "both steps to see SIGTERM" lines_matching "$out" ' TERM$' 2
  note "$(tr '\n' ';' <"$out")"
}

# The drain half of the two-phase shrink, against a stand-in controller (gaptraind does not
# decide shrinks yet): asked to drain the second node, the launcher stops that node's step with
# SIGTERM (the step sees it, not SIGKILL), reports the node in `drained`, keeps the batch
# host's step running and drops the node from the host file.
case_launch_drain() {
  local job out=$work/steps.out flag=$work/flag trigger=$work/drain reports=$work/reports.jsonl
  local portfile=$work/port fake other hosts
  python3 "$(dirname "${BASH_SOURCE[0]}")/fake_launch_controller.py" "$GAPTRAIN_MUNGE_SOCKET" \
    "$trigger" "$reports" "$portfile" 2>"$work/fake.err" &
  fake=$!
  # shellcheck disable=SC2064 # the pid is known now
  trap "kill $fake 2>/dev/null || true; cleanup" EXIT
  poll 30 "the stand-in controller's port" test -s "$portfile"
  job=$(submit -p elastic -N 2 --exclusive --elastic=1-2 -t 3 \
    --wrap "exec $launch --controller 127.0.0.1:$(cat "$portfile") --poll-ms 200 --grace-s 20 -- bash -c '
      trap \"echo \$SLURMD_NODENAME TERM >>$out; exit 0\" TERM
      echo \$SLURMD_NODENAME up >>$out
      for i in \$(seq 600); do [ -e $flag ] && exit 0; sleep 0.1; done; exit 1'")
  note "job $job submitted"
  poll 60 "both steps up" lines_in "$out" 2
  other=$(scontrol show hostnames "$(job_field "$job" NodeList)" | grep -vx "$(job_field "$job" BatchHost)")
  hosts=$work/.gaptrain/$job/hosts
  poll 30 "the host file to list both nodes" lines_in "$hosts" 2
  echo "$other" >"$trigger"
  poll 30 "the step on $other to see SIGTERM" grep -qx "$other TERM" "$out"
  poll 30 "a report with $other in drained" grep -qF "\"drained\": [\"$other\"]" "$reports"
  [ "$(cat "$hosts")" = "$(job_field "$job" BatchHost)" ] || fail "host file after the drain: $(cat "$hosts")"
  job_state_is "$job" RUNNING || fail "job $job not running after the drain"
  touch "$flag"
  poll 60 "job $job COMPLETED" job_state_is "$job" COMPLETED
  [ "$(grep -c ' TERM$' "$out")" -eq 1 ] || fail "steps: $(cat "$out")"
  note "$(grep -F 'gaptrain-launch:' "$work/job.out" | tr '\n' ';')"
}

managed() { [ "$(query_status "next((True for j in s['elastic_jobs'] if j['job_id'] == $1), False)")" = True ]; }
controller_answers() { "$GAPTRAIN_CLI" status >/dev/null 2>&1; }

# gaptraind is down as the elastic job's batch step starts, so the plugin's registration is not
# delivered; once gaptraind runs, gaptrain-launch registers the job again
# (its reports are refused: not registered) and the job is managed.
case_launch_register_late() {
  local job cluster=$here/../../scripts/local-cluster
  "$cluster" stop-controller --dir "$GAPTRAIN_CLUSTER_DIR"
  cleanup_steps+=("'$cluster' start-controller --dir '$GAPTRAIN_CLUSTER_DIR' >/dev/null 2>&1")
  ! controller_answers || fail "gaptraind still answers after stop-controller"
  job=$(submit -p elastic -N 1 --exclusive --elastic=1-1 -t 3 \
    --wrap "exec $launch --poll-ms 250 -- bash -c 'while :; do sleep 1; done'")
  note "job $job submitted with gaptraind stopped"
  poll 60 "job $job RUNNING" job_state_is "$job" RUNNING
  poll 60 "slurmd's log to say job $job's register was not delivered" bash -c \
    "grep -qE 'gaptrain: job $job node [^:]+: register not delivered' $GAPTRAIN_CLUSTER_DIR/log/slurmd-n*.log"
  poll 30 "the launcher to find the controller unreachable" \
    grep -qF "controller unreachable" "$work/job.out"
  "$cluster" start-controller --dir "$GAPTRAIN_CLUSTER_DIR"
  local started=$SECONDS
  poll 60 "gaptraind to answer again" controller_answers
  poll 90 "job $job managed by gaptraind" managed "$job"
  note "job $job managed $((SECONDS - started)) s (whole seconds) after gaptraind was started"
  # The launcher says so once gaptraind's answer reaches it, which can be after the status
  # above already shows the job: polled, not read once.
  poll_context() { echo "the launcher's last lines: $(tail -n 15 "$work/job.out" | tr '\n' ';')"; }
  poll 30 "the launcher to say it registered the job again" \
    grep -qF "job registered with the controller again" "$work/job.out"
  unset -f poll_context
  note "$(grep -F 'gaptrain-launch:' "$work/job.out" | tr '\n' ';')"
  scancel "$job"
  poll 60 "job $job CANCELLED" job_state_is "$job" CANCELLED
}

type "case_$case_name" >/dev/null 2>&1 || fail "unknown case $case_name"
"case_$case_name"
echo "PASS: $case_name"
