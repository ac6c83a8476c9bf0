#!/usr/bin/env bash
# The controller's Slurm actions (controller/daemon/libslurm_actions.*) against the real local
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

# A node no job holds, with its CPU free (sinfo -N lists a node once per partition: -p elastic).
node_idle() { [ "$(sinfo -h -N -p elastic -n "$1" -o '%T %C')" = 'idle 0/1/0/1' ]; }
# NODE's CPUs as sinfo counts them, allocated/idle/other/total. After a change sinfo may show
# the previous count once (about 0.1 s): poll.
node_cpus_are() { [ "$(sinfo -h -N -p elastic -n "$1" -o %C)" = "$2" ]; }

# resize_tool ARGS...: must succeed; its output goes to stderr (the test log).
resize() {
  local out
  out=$("$RESIZE_TOOL" "$@") || fail "resize_tool $* failed: $out"
  note "resize_tool $*: $out"
}

# Satellite allocations (libslurm_actions.cpp names them gaptrain:JOBID) of JOB, or of any job.
satellites_of() { squeue -h -n "gaptrain:$1" -o %i; }
all_satellites() { squeue -h -o '%i %j' | awk '$2 ~ /^gaptrain:/ {print $1}'; }
# Cancelled at exit with the case's jobs: a failed grow must leave nothing (the cases check).
extra_jobs() { all_satellites; }
no_satellite_of() {
  local left
  left=$(satellites_of "$1") && [ -z "$left" ]
}

# A running 2-node job on n1,n2, owned by USER (default: root). Nodes have one CPU: whole nodes.
two_node_job() {  # two_node_job [USER]
  local job
  if [ -n "${1:-}" ]; then
    # As the user: the satellites must be theirs. -D /tmp: the build tree may be closed to them.
    job=$(runuser -u "$1" -- env SLURM_CONF="$SLURM_CONF" sbatch --parsable -p elastic -N 2 \
      -w n1,n2 -t 10 -D /tmp -o /dev/null --wrap 'sleep 300') || fail "sbatch as $1 failed"
    job=${job%%;*}
    # shellcheck disable=SC2154 # case_lib.sh's list of the jobs to cancel at exit
    echo "$job" >>"$jobs_file"
  else
    job=$(submit -p elastic -N 2 -w n1,n2 -t 10 -o /dev/null --wrap 'sleep 300')
  fi
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

# Regular jobs asked onto NODES (comma list) stay pending while satellites hold them: 5 s
# after submission none runs. They are cancelled again.
regular_jobs_wait() {  # regular_jobs_wait NODES
  local n id st waiting=()
  for n in ${1//,/ }; do
    waiting+=("$(submit -p regular -N 1 -w "$n" -t 5 -o /dev/null --wrap 'sleep 300')")
  done
  sleep 5
  for id in "${waiting[@]}"; do
    st=$(job_field "$id" JobState)
    [ "$st" = PENDING ] || fail "regular job $id is $st beside a satellite: $(job_line "$id"); nodes: $(sinfo -h -N -p elastic -o '%N=%T,%C' | tr '\n' ' ')"
    note "regular job $id on $(job_field "$id" ReqNodeList): PENDING ($(job_field "$id" Reason))"
  done
  scancel "${waiting[@]}"
  for id in "${waiting[@]}"; do poll 30 "job $id to end" job_ended "$id"; done
}

# Grows JOB by NODES (comma list) with satellites, waiting first until the nodes are idle, as the
# controller does. Like the controller, it retries (with a deadline) a grow refused with "Requested
# nodes are busy": once, in a full `ctest -L slurm` run, slurmctld refused nodes that sinfo showed
# idle (docs/design.md, "Resizing a running job": ask only for idle nodes, fail fast, re-plan). Any
# other refusal fails the test. Checks every satellite (running on its node in partition elastic,
# named gaptrain:JOB, the job's user and group, TimeLimit MINUTES when given, the node's CPU
# allocated, regular jobs kept off it) and that JOB itself is unchanged. Sets `satellites` to
# "NODE=ID ..." (not printed: a $(...) subshell would lose it).
grow_by() {  # grow_by JOB NODES [MINUTES]
  local job=$1 nodes=$2 minutes=${3:-} n out id before t0 t1 deadline=$((SECONDS + 30))
  for n in ${nodes//,/ }; do poll 60 "$n idle" node_idle "$n"; done
  before=$(scontrol show hostnames "$(job_field "$job" NodeList)" | paste -sd,)
  t0=$EPOCHREALTIME
  until out=$("$RESIZE_TOOL" grow "$job" elastic "$nodes" ${minutes:+"$minutes"}); do
    if [[ $out != *'Requested nodes are busy'* ]] || ((SECONDS >= deadline)); then
      fail "resize_tool grow $job elastic $nodes failed: $out; job: $(job_line "$job"); nodes: $(sinfo -h -N -p elastic -o '%N=%T' | tr '\n' ' ')"
    fi
    note "grow refused, retrying in 1 s: $out; nodes: $(sinfo -h -N -p elastic -o '%N=%T' | tr '\n' ' ')"
    sleep 1
    t0=$EPOCHREALTIME
  done
  t1=$EPOCHREALTIME
  note "resize_tool grow $job elastic $nodes${minutes:+ $minutes}: $out ($(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f", b - a}') s)"
  [[ $out == 'ok satellites '* ]] || fail "unexpected grow output: $out"
  out=${out#ok satellites }
  satellites=${out//,/ }
  [ "$(wc -w <<<"$satellites")" = "$(wc -w <<<"${nodes//,/ }")" ] ||
    fail "satellites $satellites for nodes $nodes"
  for n in ${nodes//,/ }; do
    id=$(tr ' ' '\n' <<<"$satellites" | sed -n "s/^$n=//p")
    [ -n "$id" ] || fail "no satellite for $n in $satellites"
    poll 30 "satellite $id RUNNING" job_state_is "$id" RUNNING
    job_field_is "$id" Partition elastic || fail "satellite $id not in elastic: $(job_line "$id")"
    job_nodes_are "$id" "$n" || fail "satellite $id not on exactly $n: $(job_line "$id")"
    job_field_is "$id" JobName "gaptrain:$job" || fail "satellite $id misnamed: $(job_line "$id")"
    if ! job_field_is "$id" UserId "$(job_field "$job" UserId)" ||
      ! job_field_is "$id" GroupId "$(job_field "$job" GroupId)"; then
      fail "satellite $id not the owner's ($(job_field "$job" UserId)): $(job_line "$id")"
    fi
    if [ -n "$minutes" ]; then
      job_field_is "$id" TimeLimit "$(printf '%02d:%02d:00' $((minutes / 60)) $((minutes % 60)))" ||
        fail "satellite $id TimeLimit $(job_field "$id" TimeLimit), expected $minutes min"
    fi
    poll 10 "$n's CPU allocated (sinfo 1/0/0/1)" node_cpus_are "$n" 1/0/0/1
    note "satellite $id: $(job_field "$id" JobName) $(job_field "$id" UserId) on $n, TimeLimit $(job_field "$id" TimeLimit), sinfo $n $(sinfo -h -N -p elastic -n "$n" -o '%T %C')"
  done
  [ "$(satellites_of "$job" | wc -l)" = "$(wc -w <<<"$satellites")" ] ||
    fail "satellites of job $job in the queue: $(satellites_of "$job" | tr '\n' ' '), expected $satellites"
  job_nodes_are "$job" "$before" || fail "job $job changed by the grow: $(job_line "$job")"
  job_state_is "$job" RUNNING || fail "job $job not running after the grow: $(job_line "$job")"
  regular_jobs_wait "$nodes"
}

# Releases the satellites grow_by made (`satellites`): they end, their nodes are idle again.
release_satellites() {  # release_satellites JOB
  local job=$1 pair ids=() t0 t1
  for pair in $satellites; do ids+=("${pair#*=}"); done
  t0=$EPOCHREALTIME
  resize release "$(IFS=,; echo "${ids[*]}")"
  t1=$EPOCHREALTIME
  note "release took $(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f", b - a}') s"
  for pair in $satellites; do
    poll 30 "satellite ${pair#*=} to end" job_ended "${pair#*=}"
    poll 30 "${pair%%=*} idle again" node_idle "${pair%%=*}"
  done
  poll 30 "no satellite of job $job left" no_satellite_of "$job"
  job_state_is "$job" RUNNING || fail "job $job not running after the release: $(job_line "$job")"
  satellites=
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

# A job owned by daemon (uid 1; not nobody: Slurm 23.02 and later read uid 65534 in a job
# description as "not given") grows by n3,n4 (two satellites of daemon's, 7-minute lease) while
# keeping n1,n2, then shrinks: the satellites are released and the job keeps its batch host.
case_grow_then_shrink() {
  local job
  job=$(two_node_job daemon)
  grow_by "$job" n3,n4 7
  note "grown: job $(job_field "$job" NodeList) + satellites $satellites"
  release_satellites "$job"
  shrink_to_batch_host "$job" >/dev/null
  note "shrunk to $(job_field "$job" NodeList)"
}

# A grow that Slurm refuses fails fast and leaves no satellite and an unchanged job: onto a
# node another job holds (immediate: refused, not queued), onto an idle and a busy node (all or
# nothing: the idle node's satellite is cancelled), and in a partition that does not exist.
case_grow_refused() {
  local job blocker out rc=0
  job=$(two_node_job)
  blocker=$(submit -p regular -N 1 -w n3 -t 10 -o /dev/null --wrap 'sleep 300')
  poll 60 "job $blocker RUNNING" job_state_is "$blocker" RUNNING
  poll 30 "n4 idle" node_idle n4
  out=$("$RESIZE_TOOL" grow "$job" elastic n3) || rc=$?
  [ "$rc" = 1 ] || fail "grow of job $job onto busy n3: exit $rc ($out), expected 1"
  note "busy node: $out"
  no_satellite_of "$job" || fail "satellites left: $(satellites_of "$job" | tr '\n' ' ')"
  rc=0
  out=$("$RESIZE_TOOL" grow "$job" elastic n4,n3) || rc=$?
  [ "$rc" = 1 ] || fail "grow of job $job onto idle n4 and busy n3: exit $rc ($out), expected 1"
  [[ $out == *'satellites already made cancelled: n4='* ]] || fail "n4 not given back: $out"
  note "idle and busy node: $out"
  poll 30 "the n4 satellite to leave the queue" no_satellite_of "$job"
  poll 30 "n4 idle again" node_idle n4
  rc=0
  out=$("$RESIZE_TOOL" grow "$job" nosuch n4 2>/dev/null) || rc=$?
  [ "$rc" = 1 ] || fail "grow of job $job in partition nosuch: exit $rc ($out), expected 1"
  note "no such partition: $out"
  no_satellite_of "$job" || fail "satellites left: $(satellites_of "$job" | tr '\n' ' ')"
  job_nodes_are "$job" 'n[1-2]' || fail "job $job changed: $(job_line "$job")"
  job_state_is "$job" RUNNING || fail "job $job not running"
}

# A job of nobody (uid 65534): Slurm 22.05 makes its satellites nobody's; 23.02 and later read
# 65534 as "not given" (24.11's auth/munge also refuses a credential of it), so the grow is
# refused before Slurm is asked, with the reason, and nothing is left behind.
case_grow_for_nobody() {
  local job out rc=0 release
  job=$(two_node_job nobody)
  poll 30 "n3 idle" node_idle n3
  out=$("$RESIZE_TOOL" grow "$job" elastic n3 5) || rc=$?
  release=$(scontrol version | sed -n 's/^slurm[^ ]* \([0-9]*\)\.\([0-9]*\).*/\1\2/p')
  if ((10#$release >= 2302)); then
    [ "$rc" = 1 ] || fail "grow of nobody's job $job on Slurm $release: exit $rc ($out), expected 1"
    [[ $out == *'reads uid or gid 65534 as not given'* ]] || fail "unexpected refusal: $out"
    no_satellite_of "$job" || fail "satellites left: $(satellites_of "$job" | tr '\n' ' ')"
  else
    [ "$rc" = 0 ] || fail "grow of nobody's job $job on Slurm $release: exit $rc ($out)"
    satellites=${out#ok satellites }
    satellites=${satellites%% *}
    job_field_is "${satellites#*=}" UserId "$(job_field "$job" UserId)" ||
      fail "satellite not nobody's: $(job_line "${satellites#*=}")"
    release_satellites "$job"
  fi
  note "nobody's job: $out"
}

# A job shrinks to its batch host, then three grow/release cycles onto the node it gave up and
# n3,n4, then a lease update: updates of a job after a resize work (without slurmdbd the second
# one fails, docs/design.md "Cluster set-up").
case_three_cycles() {
  local job batch_host other i
  job=$(two_node_job)
  batch_host=$(shrink_to_batch_host "$job")
  other=$(scontrol show hostnames 'n[1-2]' | grep -vx "$batch_host")
  for i in 1 2 3; do
    grow_by "$job" "$other,n3,n4"
    note "cycle $i: job $(job_field "$job" NodeList) + satellites $satellites"
    release_satellites "$job"
  done
  resize lease "$job" 4
  poll 30 "job $job TimeLimit 00:04:00" job_field_is "$job" TimeLimit 00:04:00
  job_nodes_are "$job" "$batch_host" || fail "job $job changed: $(job_line "$job")"
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
  # Partition regular: gaptraind (running on the fixture) admits held jobs of the elastic one.
  job=$(submit -H -p regular -N 1 -t 10 -o /dev/null --wrap 'sleep 300')
  poll 30 "job $job PENDING (held)" job_state_is "$job" PENDING
  [[ $(job_field "$job" Reason) == JobHeld* ]] || fail "job $job is not held: $(job_line "$job")"
  resize admit "$job" n3,n4 3
  poll 60 "job $job RUNNING" job_state_is "$job" RUNNING
  job_nodes_are "$job" 'n[3-4]' || fail "job $job runs on $(job_field "$job" NodeList), not n[3-4]"
  job_field_is "$job" TimeLimit 00:03:00 || fail "job $job TimeLimit $(job_field "$job" TimeLimit)"
  note "admitted: $(job_field "$job" NodeList), TimeLimit $(job_field "$job" TimeLimit)"
}

# A parked pending job (a begin time a year ahead, what `gaptrain submit` writes), admitted on
# n3,n4 with a 3-minute lease, starts on exactly those nodes, with the priority it had.
case_admit_parked() {
  local job priority
  job=$(submit --begin=now+365days -p regular -N 1 -t 10 -o /dev/null --wrap 'sleep 300')
  poll 30 "job $job PENDING (parked)" job_state_is "$job" PENDING
  job_field_is "$job" Reason BeginTime || fail "job $job is not parked: $(job_line "$job")"
  priority=$(job_field "$job" Priority)
  ((priority > 0)) || fail "parked job $job has priority $priority"
  resize admit-parked "$job" n3,n4 3
  poll 60 "job $job RUNNING" job_state_is "$job" RUNNING
  job_nodes_are "$job" 'n[3-4]' || fail "job $job runs on $(job_field "$job" NodeList), not n[3-4]"
  job_field_is "$job" TimeLimit 00:03:00 || fail "job $job TimeLimit $(job_field "$job" TimeLimit)"
  job_field_is "$job" Priority "$priority" ||
    fail "job $job's priority went from $priority to $(job_field "$job" Priority)"
  note "admitted: $(job_field "$job" NodeList), TimeLimit $(job_field "$job" TimeLimit), Priority $priority"
}

# requeue: the running job goes back to the queue (Restarts=1) and leaves its nodes.
case_requeue() {
  local job
  # Partition regular: gaptraind (running on the fixture) admits held jobs of the elastic one.
  job=$(submit -p regular --requeue -N 1 -w n2 -t 10 -o /dev/null --wrap 'sleep 300')
  poll 60 "job $job RUNNING" job_state_is "$job" RUNNING
  resize requeue "$job"
  poll 60 "job $job requeued (Restarts=1)" job_field_is "$job" Restarts 1
  # Parked (not held: it keeps a priority): gaptraind admits it again where its allocator decides.
  poll 60 "job $job PENDING and parked" job_parked "$job"
  note "after requeue: $(job_field "$job" JobState) Reason=$(job_field "$job" Reason) Priority=$(job_field "$job" Priority) EligibleTime=$(job_field "$job" EligibleTime)"
}
job_parked() {
  [ "$(job_field "$1" JobState)" = PENDING ] && [ "$(job_field "$1" Reason)" = BeginTime ] &&
    [ "$(job_field "$1" Priority)" != 0 ] &&
    (($(date -d "$(job_field "$1" EligibleTime)" +%s) > $(date +%s) + 180 * 86400))
}

type "case_$case_name" >/dev/null 2>&1 || fail "unknown case $case_name"
"case_$case_name"
echo "PASS: $case_name"
