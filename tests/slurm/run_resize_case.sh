#!/usr/bin/env bash
# The controller's Slurm actions (controller/daemon/slurm_actions.*) against the real local
# cluster of the `slurm_cluster` ctest fixture, through resize_tool.
#   run_resize_case.sh ENV_SH CASE
# RESIZE_TOOL (set by CMake) is the resize_tool binary. Exits 0 on success, 1 on failure, 77
# (skipped) when not root. Every wait polls a condition with a deadline; every job this case
# submitted is cancelled at the end, and the case waits until it is gone.
set -euo pipefail

env_sh=${1:?usage: $0 ENV_SH CASE}
case_name=${2:?usage: $0 ENV_SH CASE}

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=case_lib.sh
source "$here/case_lib.sh"
case_setup "$env_sh"
[ -x "${RESIZE_TOOL:-}" ] || fail "RESIZE_TOOL is not set to resize_tool"

# The job holds exactly NODES (a Slurm host list, compared expanded) and NumNodes agrees.
job_nodes_are() {  # job_nodes_are JOBID HOSTLIST
  local have want count
  have=$(scontrol show hostnames "$(job_field "$1" NodeList)" 2>/dev/null | sort | tr '\n' ' ')
  want=$(scontrol show hostnames "$2" | sort | tr '\n' ' ')
  count=$(wc -w <<<"$want")
  [ "$have" = "$want" ] && [ "$(job_field "$1" NumNodes)" = "$count" ]
}

node_idle() { [ "$(sinfo -h -n "$1" -o %T)" = idle ]; }  # no job, no epilog, not planned

# resize_tool ARGS...: must succeed; its output goes to stderr (the test log).
resize() {
  local out
  out=$("$RESIZE_TOOL" "$@") || fail "resize_tool $* failed: $out"
  note "resize_tool $*: $out"
}

# Expansion allocations in the queue (slurm_actions.cpp names them gaptrain-expand-JOBID).
expansion_jobs() { squeue -h -o '%i %j' | awk '$2 ~ /^gaptrain-expand-/ {print $1}'; }
# Cancelled at exit with the case's jobs: a failed grow must leave nothing (the cases check).
extra_jobs() { expansion_jobs; }
no_expansion_job_left() {
  local left
  left=$(expansion_jobs) && [ -z "$left" ]
}

# A running 2-node elastic job on n1,n2 (whole nodes, so a grow gets whole nodes too).
two_node_job() {
  local job
  job=$(submit -p elastic --exclusive -N 2 -w n1,n2 -t 10 -o /dev/null --wrap 'sleep 300')
  poll 60 "job $job RUNNING" job_state_is "$job" RUNNING
  poll 30 "job $job on n[1-2]" job_nodes_are "$job" 'n[1-2]'
  echo "$job"
}

# Shrinks JOB to its batch host and checks the result; prints the batch host.
shrink_to_batch_host() {  # shrink_to_batch_host JOB
  local job=$1 batch_host
  batch_host=$(job_field "$job" BatchHost)
  resize shrink "$job" "$batch_host"
  poll 30 "job $job to hold only its batch host $batch_host" job_nodes_are "$job" "$batch_host"
  job_state_is "$job" RUNNING || fail "job $job not running after the shrink: $(job_line "$job")"
  echo "$batch_host"
}

# Grows JOB by NODES (comma list), waiting first until they are idle, as the controller does.
# Like the controller, it retries (with a deadline) a grow refused with "Requested nodes are
# busy": once, in a full `ctest -L slurm` run, slurmctld refused nodes that sinfo showed idle
# (DESIGN.md §3: ask only for idle nodes, fail fast, re-plan). Any other refusal fails the test.
grow_by() {  # grow_by JOB NODES EXPECTED-HOSTLIST
  local job=$1 nodes=$2 expected=$3 n out deadline=$((SECONDS + 30))
  for n in ${nodes//,/ }; do poll 60 "$n idle" node_idle "$n"; done
  until out=$("$RESIZE_TOOL" grow "$job" elastic "$nodes"); do
    if [[ $out != *'Requested nodes are busy'* ]] || ((SECONDS >= deadline)); then
      fail "resize_tool grow $job elastic $nodes failed: $out; job: $(job_line "$job"); nodes: $(sinfo -h -N -o '%N=%T' | tr '\n' ' ')"
    fi
    note "grow refused, retrying in 1 s: $out; nodes: $(sinfo -h -N -o '%N=%T' | sort -u | tr '\n' ' ')"
    sleep 1
  done
  note "resize_tool grow $job elastic $nodes: $out"
  poll 30 "job $job on $expected" job_nodes_are "$job" "$expected"
  job_state_is "$job" RUNNING || fail "job $job not running after the grow: $(job_line "$job")"
  poll 30 "the expansion job to leave the queue" no_expansion_job_left
}

# ---------------------------------------------------------------------------------------

# A 2-node job shrinks to its batch host: NodeList is the batch host, NumNodes 1.
case_shrink_to_batch_host() {
  local job batch_host
  job=$(two_node_job)
  batch_host=$(shrink_to_batch_host "$job")
  note "job $job now $(job_field "$job" NodeList) (batch host $batch_host), NumNodes $(job_field "$job" NumNodes)"
}

# Keeping only the other node (not the batch host) is refused by LibslurmActions itself; the
# job keeps both nodes.
case_shrink_batch_host_refused() {
  local job batch_host other out rc=0
  job=$(two_node_job)
  batch_host=$(job_field "$job" BatchHost)
  other=$(scontrol show hostnames "$(job_field "$job" NodeList)" | grep -vx "$batch_host" | head -n1)
  out=$("$RESIZE_TOOL" shrink "$job" "$other") || rc=$?
  [ "$rc" = 1 ] || fail "shrink of job $job to $other: exit $rc ($out), expected 1"
  grep -qF "would remove the batch host $batch_host" <<<"$out" || fail "unexpected refusal: $out"
  job_nodes_are "$job" 'n[1-2]' || fail "job $job changed: $(job_line "$job")"
  job_state_is "$job" RUNNING || fail "job $job not running"
  note "refused: $out"
}

# Shrink to the batch host, grow by n3,n4 (one expansion allocation, merged), shrink again.
case_grow_then_shrink() {
  local job batch_host
  job=$(two_node_job)
  batch_host=$(shrink_to_batch_host "$job")
  grow_by "$job" n3,n4 "$batch_host,n3,n4"
  note "grown to $(job_field "$job" NodeList), NumNodes $(job_field "$job" NumNodes)"
  shrink_to_batch_host "$job" >/dev/null
  note "shrunk again to $(job_field "$job" NodeList)"
}

# A grow that Slurm refuses fails fast and leaves neither an expansion job nor a changed job:
# onto a node another job holds (immediate: refused, not queued), and in another partition.
case_grow_refused() {
  local job blocker out rc=0
  job=$(two_node_job)
  blocker=$(submit -p regular --exclusive -N 1 -w n3 -t 10 -o /dev/null --wrap 'sleep 300')
  poll 60 "job $blocker RUNNING" job_state_is "$blocker" RUNNING
  out=$("$RESIZE_TOOL" grow "$job" elastic n3) || rc=$?
  [ "$rc" = 1 ] || fail "grow of job $job onto busy n3: exit $rc ($out), expected 1"
  note "busy node: $out"
  rc=0
  poll 30 "n4 idle" node_idle n4
  out=$("$RESIZE_TOOL" grow "$job" regular n4) || rc=$?
  [ "$rc" = 1 ] || fail "grow of job $job in partition regular: exit $rc ($out), expected 1"
  note "other partition: $out"
  no_expansion_job_left || fail "expansion jobs left: $(expansion_jobs | tr '\n' ' ')"
  job_nodes_are "$job" 'n[1-2]' || fail "job $job changed: $(job_line "$job")"
  job_state_is "$job" RUNNING || fail "job $job not running"
}

# Three grow/shrink cycles on one job, then a lease update: every update after the first
# resize works (without slurmdbd the second one fails, DESIGN.md §3).
case_three_cycles() {
  local job batch_host i
  job=$(two_node_job)
  batch_host=$(job_field "$job" BatchHost)
  for i in 1 2 3; do
    shrink_to_batch_host "$job" >/dev/null
    grow_by "$job" n3,n4 "$batch_host,n3,n4"
    note "cycle $i: $(job_field "$job" NodeList)"
  done
  shrink_to_batch_host "$job" >/dev/null
  resize lease "$job" 4
  poll 30 "job $job TimeLimit 00:04:00" job_field_is "$job" TimeLimit 00:04:00
}

# The lease: TimeLimit follows set_time_limit, up and down.
case_lease() {
  local job
  job=$(two_node_job)
  resize lease "$job" 7
  poll 30 "job $job TimeLimit 00:07:00" job_field_is "$job" TimeLimit 00:07:00
  resize lease "$job" 3
  poll 30 "job $job TimeLimit 00:03:00" job_field_is "$job" TimeLimit 00:03:00
}

# A held pending job, admitted on n3,n4 with a 3-minute lease, starts on exactly those nodes.
case_admit() {
  local job
  job=$(submit -H -p elastic --exclusive -N 1 -t 10 -o /dev/null --wrap 'sleep 300')
  poll 30 "job $job PENDING (held)" job_state_is "$job" PENDING
  [[ $(job_field "$job" Reason) == JobHeld* ]] || fail "job $job is not held: $(job_line "$job")"
  resize admit "$job" n3,n4 3
  poll 60 "job $job RUNNING" job_state_is "$job" RUNNING
  job_nodes_are "$job" 'n[3-4]' || fail "job $job runs on $(job_field "$job" NodeList), not n[3-4]"
  job_field_is "$job" TimeLimit 00:03:00 || fail "job $job TimeLimit $(job_field "$job" TimeLimit)"
  note "admitted: $(job_field "$job" NodeList), TimeLimit $(job_field "$job" TimeLimit)"
}

# requeue: the running job goes back to the queue (Restarts=1) and leaves its nodes.
case_requeue() {
  local job
  job=$(submit -p elastic --requeue --exclusive -N 1 -w n2 -t 10 -o /dev/null --wrap 'sleep 300')
  poll 60 "job $job RUNNING" job_state_is "$job" RUNNING
  resize requeue "$job"
  poll 60 "job $job requeued (Restarts=1)" job_field_is "$job" Restarts 1
  poll 60 "job $job PENDING or RUNNING again" job_back_in_queue "$job"
  note "after requeue: $(job_field "$job" JobState) Restarts=$(job_field "$job" Restarts)"
}
job_back_in_queue() {
  case $(job_field "$1" JobState) in PENDING|RUNNING|CONFIGURING) return 0 ;; esac
  return 1
}

type "case_$case_name" >/dev/null 2>&1 || fail "unknown case $case_name"
"case_$case_name"
echo "PASS: $case_name"
