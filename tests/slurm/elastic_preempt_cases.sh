# Satellites Slurm preempts itself: the cluster reconfigured for preemption by QOS,
# grows past a pending job (satellite partition or reservation), a preemption with gaptraind stopped.
# Sourced by run_elastic_case.sh (its helpers and the case's `work` in scope).
# shellcheck shell=bash
# shellcheck disable=SC2154 # launch, work, here and the cluster's variables are run_elastic_case.sh's

# Satellites in a QOS the regular QOS may preempt (preempt/qos, PreemptMode=CANCEL,
# gaptraind.json satellite_qos) are freed by slurmctld itself: with gaptraind stopped (SIGSTOP),
# a regular job over two satellites starts within max_start_s, the two satellites PREEMPTED, the
# elastic job still running on its batch host, never requeued. gaptraind, continued, reports it
# as a reclaim it did not make (journal ACTION=preempted, `gaptrain job`'s resizes) and grows
# the job back once the regular job ends. The cluster is configured back as it was at exit.
# The start of a case that reconfigures the cluster: slurm.conf and gaptraind.json kept as they
# are, put back at exit (preempt_satellites_restore), and preemption by QOS in slurm.conf.
reconfigure_for_preemption() {
  cp "$GAPTRAIN_CLUSTER_DIR/etc/slurm.conf" "$work/slurm.conf.orig"
  cp "$GAPTRAIN_CLUSTER_DIR/etc/gaptraind.json" "$work/gaptraind.json.orig"
  cleanup_steps+=("preempt_satellites_restore")
  printf 'PreemptType=preempt/qos\nPreemptMode=CANCEL\n' >>"$GAPTRAIN_CLUSTER_DIR/etc/slurm.conf"
}
# slurmctld started again on the changed slurm.conf (PreemptType and partitions take a restart).
restart_slurmctld() {
  local cluster=$here/../../scripts/local-cluster
  "$cluster" stop-slurmctld --dir "$GAPTRAIN_CLUSTER_DIR" 2>/dev/null
  "$cluster" start-slurmctld --dir "$GAPTRAIN_CLUSTER_DIR" 2>"$work/start.log" ||
    fail "slurmctld did not start again: $(tail -n 5 "$work/start.log")"
  poll 120 "every node known to slurmctld again" every_node_known
}
# gaptraind started again on the changed gaptraind.json; returns once it read Slurm's settings.
# Sets `lines`: LOG's line count before the restart.
restart_gaptraind() {  # restart_gaptraind LOG
  local cluster=$here/../../scripts/local-cluster
  lines=$(wc -l <"$1")
  "$cluster" stop-controller --dir "$GAPTRAIN_CLUSTER_DIR" 2>/dev/null
  "$cluster" start-controller --dir "$GAPTRAIN_CLUSTER_DIR" >/dev/null 2>&1 ||
    fail "gaptraind did not start again on $(cat "$GAPTRAIN_CLUSTER_DIR/etc/gaptraind.json")"
  poll 60 "gaptraind reading Slurm's settings" logged_after "$1" "$lines" 'msg="slurm release"'
}
preempt_satellites_setup() {  # preempt_satellites_setup LOG: slurm.conf, QOS and gaptraind
  local conf=$GAPTRAIN_CLUSTER_DIR/etc/slurm.conf json=$GAPTRAIN_CLUSTER_DIR/etc/gaptraind.json
  local lines
  reconfigure_for_preemption
  # Before 24.11 the partition's tier does not count for an immediate allocation: satellites
  # there are made in a reservation of a licence only (docs/admin.md, "Grows Slurm refuses for
  # priority"), created once slurmctld runs again.
  tiers_rank_satellites || echo 'Licenses=gaptrain_satellite:1' >>"$conf"
  # The satellite partition, as scripts/local-cluster --satellite-partition makes it.
  # Over the elastic partition's nodes (not ALL: the cluster's home node never trains).
  echo "PartitionName=satellites Nodes=$(scontrol -o show partition elastic | sed -n 's/.* Nodes=\([^ ]*\).*/\1/p') Default=NO MaxTime=INFINITE State=UP PriorityTier=11 Hidden=YES" >>"$conf"
  sacctmgr -i add qos satellite >/dev/null
  sacctmgr -i modify qos normal set preempt=satellite >/dev/null
  python3 -c 'import json, sys; c = json.load(open(sys.argv[1])); c["satellite_qos"] = "satellite"; c["satellite_partition"] = "satellites"; c["satellite_reservation"] = sys.argv[2]; json.dump(c, open(sys.argv[1], "w"))' \
    "$json" "$(tiers_rank_satellites || echo gaptrain-satellites)"
  restart_slurmctld
  tiers_rank_satellites ||
    scontrol create reservation ReservationName=gaptrain-satellites Licenses=gaptrain_satellite:1 \
      StartTime=now Duration=infinite Users=-nobody Flags=ANY_NODES >/dev/null ||
    fail "the satellites' reservation could not be made"
  restart_gaptraind "$1"
  ! logged_after "$1" "$lines" 'satellite_qos is' ||
    fail "gaptraind says Slurm lacks what satellite_qos needs: $(grep 'satellite_qos is' "$1" | tail -n 2)"
  if tiers_rank_satellites; then
    ! logged_after "$1" "$lines" 'satellite_partition' ||
      fail "gaptraind says the satellite partition lacks something: $(grep 'satellite_partition' "$1" | tail -n 2)"
  else
    poll 30 "gaptraind saying the satellite partition cannot help before Slurm 24.11" \
      logged_after "$1" "$lines" 'satellite_partition.*by priority alone'
  fi
}
# Whether slurmctld ranks an immediate allocation against pending jobs by partition tier first
# (24.11 on); before, by priority alone (docs/admin.md, "A satellite partition").
tiers_rank_satellites() {
  local major minor
  IFS=. read -r major minor _ <<<"$(sinfo --version | awk '{print $2}')"
  ((major > 24 || (major == 24 && minor >= 11)))
}
preempt_satellites_restore() {
  local cluster=$here/../../scripts/local-cluster
  cp "$work/slurm.conf.orig" "$GAPTRAIN_CLUSTER_DIR/etc/slurm.conf"
  cp "$work/gaptraind.json.orig" "$GAPTRAIN_CLUSTER_DIR/etc/gaptraind.json"
  scontrol delete reservation=gaptrain-satellites >/dev/null 2>&1
  sacctmgr -i modify qos normal set preempt= >/dev/null 2>&1
  sacctmgr -i delete qos satellite >/dev/null 2>&1
  "$cluster" stop-slurmctld --dir "$GAPTRAIN_CLUSTER_DIR" 2>/dev/null
  "$cluster" start-slurmctld --dir "$GAPTRAIN_CLUSTER_DIR" 2>/dev/null
  "$cluster" stop-controller --dir "$GAPTRAIN_CLUSTER_DIR" 2>/dev/null
  "$cluster" start-controller --dir "$GAPTRAIN_CLUSTER_DIR" >/dev/null 2>&1
  local deadline=$((SECONDS + 120))
  until every_node_known || ((SECONDS >= deadline)); do sleep 0.2; done
}
# Satellites in the satellite partition (above regular's PriorityTier; from 24.11) or in the
# satellites' reservation (before 24.11) are granted in holes while a regular job of higher
# priority pends: an 8-node job waits for a 1-node regular job, the elastic job grows into the 6
# nodes another regular job leaves, and Slurm refuses none ("insufficient priority", which
# every grow got in the elastic partition). Sets `job`.
grown_past_a_pending_job() {
  local log=$GAPTRAIN_CLUSTER_DIR/log/gaptraind.log lines one six big
  one=$(submit -p regular -N 1 -t 10 --wrap 'sleep 600')
  six=$(submit -p regular -N 6 -t 10 --wrap 'sleep 600')
  poll 60 "regular jobs $one and $six RUNNING" bash -c "[ \"\$(squeue -h -j $one,$six -t R | wc -l)\" = 2 ]"
  job=$(submit_elastic "$idle_loop")
  poll 60 "elastic job $job on the last idle node" elastic_at "$job" 1
  big=$(submit -p regular -N 8 -t 5 --wrap 'sleep 1')
  lines=$(wc -l <"$log")
  scancel "$six"
  poll 60 "elastic job $job grown into the 6 nodes of regular job $six while $big pends" \
    elastic_at "$job" 7
  job_state_is "$big" PENDING || fail "regular job $big is $(job_field "$big" JobState), not PENDING"
  ! logged_after "$log" "$lines" 'insufficient priority' ||
    fail "Slurm refused a satellite: $(grep 'insufficient priority' "$log" | tail -n 1)"
  scancel "$big" "$one"
  poll 60 "elastic job $job grown to 8 nodes" elastic_at "$job" 8
  no_node_shared
}

case_satellites_preempted() {
  local log=$GAPTRAIN_CLUSTER_DIR/log/gaptraind.log job batch_host pid regular satellites
  local preempted lines
  preempt_satellites_setup "$log"
  grown_past_a_pending_job
  batch_host=$(job_field "$job" BatchHost)
  satellites=$(satellites_of "$job" | sort | tr '\n' ',')
  for s in ${satellites//,/ }; do
    [ "$(job_field "$s" QOS)" = satellite ] || fail "satellite $s of job $job is in QOS $(job_field "$s" QOS)"
  done
  lines=$(wc -l <"$log")
  read -r pid _ <"$GAPTRAIN_CLUSTER_DIR/run/gaptraind.pid"
  cleanup_steps+=("kill -CONT $pid")
  kill -STOP "$pid"
  note "gaptraind (pid $pid) stopped; job $job holds satellites $satellites"
  regular=$(regular_starts_in_time 2 20) || exit 1
  job_state_is "$job" RUNNING || fail "elastic job $job is not running"
  [ "$(job_field "$job" BatchHost)" = "$batch_host" ] || fail "elastic job $job lost its batch host"
  [ "$(job_field "$job" Restarts)" = 0 ] || fail "elastic job $job was requeued"
  preempted=$(sacct -n -X -P -j "${satellites%,}" -o jobid,state | awk -F'|' '$2 ~ /PREEMPTED/ {print $1}' | sort | tr '\n' ' ')
  [ "$(wc -w <<<"$preempted")" = 2 ] || fail "expected 2 satellites PREEMPTED, got '$preempted'"
  note "regular job $regular started without gaptraind; satellites $preempted PREEMPTED by slurmctld"

  kill -CONT "$pid"
  poll 60 "gaptraind reporting the preemption" \
    logged_after "$log" "$lines" "ACTION=preempted JOB_ID=$job "
  poll 30 "gaptrain job $job showing a reclaim by Slurm" \
    bash -c "'$GAPTRAIN_CLI' job $job --json | grep -q 'preempted by Slurm'"
  poll 60 "regular job $regular done" job_state_is "$regular" COMPLETED
  poll 90 "elastic job $job grown back to 8 nodes" elastic_at "$job" 8
  no_node_shared
}
