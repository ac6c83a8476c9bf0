#!/usr/bin/env bash
# Test cases against the real local Slurm cluster of the `slurm_cluster` ctest fixture.
#   run_slurm_case.sh ENV_SH CASE
# ENV_SH is the fixture's env.sh (SLURM_CONF and the GAPTRAIN_* variables). Exits 0 on
# success, 1 on failure, 77 (ctest: skipped) when not root. Never sleeps blindly: every wait
# polls a condition with a deadline.
set -euo pipefail

env_sh=${1:?usage: $0 ENV_SH CASE}
case_name=${2:?usage: $0 ENV_SH CASE}

if [ "$(id -u)" -ne 0 ]; then
  echo "SKIP: the Slurm tests need root (the fixture cluster only runs as root)" >&2
  exit 77
fi
[ -f "$env_sh" ] || { echo "FAIL: $env_sh missing: did the slurm_cluster fixture start?" >&2; exit 1; }
# shellcheck disable=SC1090 # written by the fixture
source "$env_sh"

fail() { echo "FAIL: $*" >&2; exit 1; }
note() { echo "$case_name: $*" >&2; }

# Jobs this case submitted; cancelled whatever happens, so the next case finds idle nodes.
jobs_submitted=()
cleanup() {
  [ ${#jobs_submitted[@]} -eq 0 ] || scancel "${jobs_submitted[@]}" 2>/dev/null || true
}
trap cleanup EXIT

# poll SECONDS DESCRIPTION CMD...: runs CMD every 0.2 s until it succeeds.
poll() {
  local limit=$1 what=$2; shift 2
  local deadline=$((SECONDS + limit))
  until "$@"; do
    ((SECONDS < deadline)) || fail "timed out after ${limit}s waiting for $what"
    sleep 0.2
  done
}

# One field of `scontrol show job -o` (one line, Key=Value words).
job_field() {  # job_field JOBID KEY
  scontrol show job -o "$1" | tr ' ' '\n' | sed -n "s/^$2=//p" | head -n1
}

job_state_is() {  # job_state_is JOBID STATE; fails the test on a terminal state not wanted
  local st
  st=$(job_field "$1" JobState)
  [ "$st" = "$2" ] && return 0
  case $st in
    FAILED|CANCELLED|TIMEOUT|NODE_FAIL|PREEMPTED|BOOT_FAIL|DEADLINE|OUT_OF_MEMORY|COMPLETED)
      fail "job $1 is $st, expected $2: $(scontrol show job -o "$1")" ;;
  esac
  return 1
}

job_num_nodes_is() { [ "$(job_field "$1" NumNodes)" = "$2" ]; }

# The job and its processes are gone (no longer pending, running or completing).
job_ended() {
  case $(job_field "$1" JobState) in
    PENDING|CONFIGURING|RUNNING|COMPLETING|RESIZING|SUSPENDED|REQUEUED) return 1 ;;
  esac
}

sacct_state_is() {  # sacct_state_is JOBID STATE: the accounting record (slurmdbd) agrees
  [ "$(sacct -n -X -P -j "$1" -o State 2>/dev/null | head -n1)" = "$2" ]
}

submit() {  # submit SBATCH-ARGS...: prints the job id
  local id
  id=$(sbatch --parsable "$@") || fail "sbatch $* failed"
  id=${id%%;*}
  jobs_submitted+=("$id")
  echo "$id"
}

# A 2-node batch job with a 2-node step runs on two nodes and completes, and slurmdbd has
# recorded it.
case_batch_two_nodes() {
  local job out
  out=$GAPTRAIN_CLUSTER_DIR/test-batch-%j.out
  job=$(submit -N 2 -t 2 -o "$out" --wrap 'srun -N 2 printenv SLURMD_NODENAME')
  note "job $job submitted"
  poll 60 "job $job COMPLETED" job_state_is "$job" COMPLETED
  [ "$(job_field "$job" NumNodes)" = 2 ] || fail "job $job ran on $(job_field "$job" NodeList)"
  out=${out//%j/$job}
  [ "$(sort -u "$out" | wc -l)" -eq 2 ] || fail "step output in $out is not from 2 nodes: $(cat "$out")"
  poll 30 "sacct to report job $job COMPLETED" sacct_state_is "$job" COMPLETED
  note "ran on $(job_field "$job" NodeList): $(tr '\n' ' ' <"$out")"
}

# A 2-node job in partition elastic shrinks to 1 node, and a second update of the same job
# works afterwards (with no slurmdbd, the first resize breaks every later update: DESIGN §3).
case_elastic_shrink() {
  local job batch_host
  job=$(submit -p elastic -N 2 -t 5 -o /dev/null --wrap 'sleep 300')
  note "job $job submitted"
  poll 60 "job $job RUNNING" job_state_is "$job" RUNNING
  [ "$(job_field "$job" NumNodes)" = 2 ] || fail "job $job did not get 2 nodes"
  batch_host=$(job_field "$job" BatchHost)
  scontrol update JobId="$job" NumNodes=1 || fail "shrink of job $job refused"
  poll 30 "job $job to hold 1 node" job_num_nodes_is "$job" 1
  [ "$(job_field "$job" NodeList)" = "$batch_host" ] || fail "job $job kept $(job_field "$job" NodeList), not its batch host $batch_host"
  job_state_is "$job" RUNNING || fail "job $job not running after the shrink"
  scontrol update JobId="$job" TimeLimit=+1 || fail "update after the resize refused (slurmdbd?)"
  note "shrunk to $batch_host; TimeLimit now $(job_field "$job" TimeLimit)"
  scancel "$job"
  poll 60 "job $job to end" job_ended "$job"
}

type "case_$case_name" >/dev/null 2>&1 || fail "unknown case $case_name"
"case_$case_name"
echo "PASS: $case_name"
