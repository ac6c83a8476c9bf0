#!/usr/bin/env bash
# preempt_qos_probe.sh: would Slurm itself free satellites (and only them) for regular jobs, by
# preemption by QOS? An experiment, not a ctest case (gaptraind does not use preemption: it
# reclaims node by node itself); its "FACT" lines are what docs/slurm-notes.md records.
#
#   preempt_qos_probe.sh DIR     (as root; DIR: a new directory for a private 4-node cluster)
#
# Starts scripts/local-cluster in DIR without gaptraind, adds PreemptType=preempt/qos and
# PreemptMode=CANCEL, a QOS "satellite" that QOS "normal" may preempt, and restarts slurmctld.
# Then, as user daemon: a 2-node batch job (QOS normal) on n1,n2 and two satellite-like
# immediate allocations (salloc --no-shell, QOS satellite, named gaptrain:JOB) on n3 and n4.
# A 1-node regular job must start by preempting one satellite, never the batch job; a 2-node
# regular job then has no second preemptable node and must wait. Stops the cluster on exit.
set -uo pipefail
dir=${1:?usage: preempt_qos_probe.sh DIR}
lc=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/scripts/local-cluster
trap '"$lc" stop --dir "$dir" >/dev/null 2>&1' EXIT
eval "$("$lc" start --dir "$dir" --nodes 4 --no-controller --no-home-mode 2>"$dir.start.log")" ||
  { tail "$dir.start.log" >&2; exit 1; }
echo "FACT release: $(scontrol version)"
printf 'PreemptType=preempt/qos\nPreemptMode=CANCEL\n' >>"$SLURM_CONF"
sacctmgr -i add qos satellite >/dev/null
sacctmgr -i modify qos normal set preempt=satellite >/dev/null
"$lc" stop-slurmctld --dir "$dir" >/dev/null 2>&1
"$lc" start-slurmctld --dir "$dir" >/dev/null 2>&1

field() { scontrol show job "$1" | tr ' ' '\n' | sed -n "s/^$2=//p" | head -n1; }
as_daemon() { runuser -u daemon -- env SLURM_CONF="$SLURM_CONF" "$@"; }
running_within() {  # running_within SECONDS JOB: polls until JOB runs or the time is up
  local deadline=$((SECONDS + $1))
  until [ "$(field "$2" JobState)" = RUNNING ]; do ((SECONDS < deadline)) || return 1; sleep 0.25; done
}
seconds_since() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN {printf "%.2f", b - a}'; }

job=$(as_daemon sbatch --parsable -p elastic -N 2 -w n1,n2 -t 10 -D /tmp -o /dev/null --wrap 'sleep 300')
running_within 30 "$job" || echo "FACT batch job $job did not start"
sats=()
for n in n3 n4; do
  out=$(as_daemon salloc --no-shell --immediate=5 -p elastic -N 1 -w "$n" -t 10 -D /tmp \
    --qos=satellite -J "gaptrain:$job" 2>&1)
  sats+=("$(sed -n 's/.*Granted job allocation \([0-9]*\).*/\1/p' <<<"$out")")
done
squeue -o '%i %j %u %q %T %N'
t0=$EPOCHREALTIME
r1=$(sbatch --parsable -p regular -N 1 -t 5 -o /dev/null --wrap 'sleep 300')
running_within 30 "$r1"
echo "FACT 1-node regular job: $(field "$r1" JobState) on $(field "$r1" NodeList) after $(seconds_since "$t0") s"
t0=$EPOCHREALTIME
r2=$(sbatch --parsable -p regular -N 2 -t 5 -o /dev/null --wrap 'sleep 300')
running_within 15 "$r2"
echo "FACT 2-node regular job: $(field "$r2" JobState) ($(field "$r2" Reason)) after $(seconds_since "$t0") s"
squeue -o '%i %j %u %q %T %N'
sacct -n -X -j "$job,${sats[0]},${sats[1]},$r1,$r2" -o jobid,jobname%12,user,qos,state | sed 's/^/FACT sacct: /'
scancel "$job" "$r1" "$r2" "${sats[@]}" 2>/dev/null
