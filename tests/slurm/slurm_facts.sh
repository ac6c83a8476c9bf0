#!/usr/bin/env bash
# slurm_facts.sh: re-checks on a running local cluster the Slurm behaviour gaptrain's design
# depends on (docs/slurm-notes.md), so that each release is checked the same way. Not a ctest
# case: it measures (seconds) rather than asserts, and its "FACT name: value" lines are what
# docs/slurm-notes.md records per release.
#
#   slurm_facts.sh ENV_SH RESIZE_TOOL
#
# ENV_SH: the cluster's env.sh (scripts/local-cluster start ... > env.sh), 4 nodes or more, no
# job running. RESIZE_TOOL: tests/slurm's resize_tool built against the cluster's Slurm. Every
# job it submits is cancelled at the end.
set -euo pipefail

env_sh=${1:?usage: slurm_facts.sh ENV_SH RESIZE_TOOL}
RESIZE_TOOL=${2:?usage: slurm_facts.sh ENV_SH RESIZE_TOOL}
# shellcheck disable=SC1090 # the cluster's exports
source "$env_sh"
# shellcheck disable=SC2034 # read by case_lib.sh
case_name=slurm_facts
# shellcheck source=case_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/case_lib.sh"
jobs_file=$(mktemp)
# shellcheck disable=SC2034 # read by case_lib.sh's submit
submit_args=(-D /tmp -o /dev/null)
trap 'cancel_all' EXIT

cancel_all() {
  local ids
  ids=$(squeue -h -o %A | tr '\n' ' ')
  # shellcheck disable=SC2086 # the job ids, one argument each
  [ -z "$ids" ] || scancel $ids 2>/dev/null || true
  local deadline=$((SECONDS + 30))
  until [ -z "$(squeue -h -o %A)" ] || ((SECONDS >= deadline)); do sleep 0.2; done
  rm -f "$jobs_file"
}

fact() { echo "FACT $1: $2"; }
now_ms() { date +%s%3N; }
running() { job_field_is "$1" JobState RUNNING; }
all_idle() { [ "$(sinfo -h -N -p regular -t idle -o %N | sort -u | wc -l)" -ge 4 ]; }
node_is_idle() { [ "$(sinfo -h -N -p elastic -n "$1" -o %T)" = idle ]; }
started() { [ "$(squeue -h -j "$1" -o %T)" != PENDING ]; }
pending_with_plan() { [ "$(squeue -h -j "$1" -o %Y)" != "(null)" ] && [ -n "$(squeue -h -j "$1" -o %Y)" ]; }

fact release "$(scontrol version)"

# 1. Satellites: an immediate single-node allocation beside a running elastic job.
job=$(submit -p elastic -N 1 -w n1 -t 10 --wrap 'sleep 600')
poll 30 "job $job running" running "$job"
t0=$(now_ms)
out=$("$RESIZE_TOOL" grow "$job" elastic n2 5 || true)
fact satellite_grant "$out ($(($(now_ms) - t0)) ms)"
satellite=${out##*n2=}
out=$("$RESIZE_TOOL" grow "$job" elastic n2 5 || true)
fact satellite_refused_busy "$out"
"$RESIZE_TOOL" release "$satellite" >/dev/null || true
poll 30 "n2 idle" node_is_idle n2

# 2. A pending regular job that needs every node: backfill plans it (start_time, sched_nodes),
# and an immediate allocation behind it is refused for its priority.
regular=$(submit -p regular -N 4 -t 5 --wrap 'sleep 1')
poll 30 "job $regular planned by backfill" pending_with_plan "$regular"
fact pending_plan "$(squeue -h -j "$regular" -o 'StartTime=%S SchedNodes=%Y Reason=%r')"
out=$("$RESIZE_TOOL" grow "$job" elastic n3 5 || true)
fact satellite_refused_priority "$out"

# 3. A lease: the time limit of a running job updated again and again (slurmdbd accounting).
for minutes in 3 4 2; do
  out=$("$RESIZE_TOOL" lease "$job" "$minutes" || true)
  fact "lease_${minutes}min" "$out; TimeLimit=$(job_field "$job" TimeLimit)"
done
scancel "$regular" "$job"
poll 30 "job $regular gone" job_ended "$regular"
poll 30 "job $job gone" job_ended "$job"
poll 30 "nodes idle" all_idle

# 4. A requeued job's begin time.
job=$(submit -p elastic -N 1 -w n1 -t 10 --requeue --wrap 'sleep 600')
poll 30 "job $job running" running "$job"
"$RESIZE_TOOL" requeue "$job" >/dev/null
poll 30 "job $job pending again" job_field_is "$job" JobState PENDING
begin=$(date -d "$(job_field "$job" EligibleTime)" +%s 2>/dev/null || echo 0)
fact requeue_begin "EligibleTime $((begin - $(date +%s))) s ahead; $(job_field "$job" Reason)"
scancel "$job"

# 5. The shrink of an exclusive allocation: how long a node it gave up stays unusable after a
# later job there ends (22.05: until the next node ping).
poll 30 "job $job gone" job_ended "$job"
poll 30 "nodes idle" all_idle
job=$(submit -p regular -N 2 -w n3,n4 --exclusive -t 10 --wrap 'sleep 600')
poll 30 "job $job running" running "$job"
out=$("$RESIZE_TOOL" shrink "$job" n3 || true)
fact shrink_own_node "$out; NodeList=$(job_field "$job" NodeList)"
later=$(submit -p regular -N 1 -w n4 -t 1 --wrap 'sleep 1')
poll 60 "job $later ended" job_ended "$later"
t0=$(now_ms)
probe=$(submit -p regular -N 1 -w n4 -t 1 --wrap 'sleep 1')
deadline=$((SECONDS + 60))
until started "$probe" || ((SECONDS >= deadline)); do sleep 0.1; done
if started "$probe"; then
  fact shrink_leak "a job on n4 started $(($(now_ms) - t0)) ms after submission"
else
  fact shrink_leak "a job on n4 still pending after 60 s: $(squeue -h -j "$probe" -o %r)"
fi
