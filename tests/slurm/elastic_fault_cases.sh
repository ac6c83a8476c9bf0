# Faults of gaptraind under an elastic job that trains on its batch host and satellites: its
# registration sent again, gaptraind restarted without its state file. Sourced by
# run_elastic_case.sh (its helpers and the case's `work` in scope).
# shellcheck shell=bash
# shellcheck disable=SC2154 # launch, work and here are run_elastic_case.sh's

# The running steps of JOB and of its satellites (Slurm's step ids, the batch and extern steps
# left out), one a line, sorted: a step stopped and started again shows as another id.
steps_of() {  # steps_of JOB
  local ids
  ids=$( { echo "$1"; satellites_of "$1"; } | paste -sd'|')
  squeue -h -s -o '%i' | grep -E "^($ids)\.[0-9]+$" | sort
}

# Steps of JOB and its satellites that ended while the job runs (sacct: JobID State ExitCode):
# every step of this training runs until the job is told to finish.
ended_steps_of() {  # ended_steps_of JOB
  local ids
  ids=$( { echo "$1"; satellites_of "$1"; } | paste -sd,)
  sacct -n -P -j "$ids" -o JobID,State,ExitCode | awk -F'|' '$1 ~ /\.[0-9]+$/ && $2 != "RUNNING"'
}

# Appends a progress line to PROGRESS every second (800 samples a second more), in the
# background until the case ends: gaptraind learns the job's curve from it.
write_progress() {  # write_progress PROGRESS
  (
    samples=0
    while sleep 1; do
      samples=$((samples + 800))
      echo "{\"samples_done\": $samples}" >>"$1"
    done
  ) &
  cleanup_steps+=("kill $!")
}

# An elastic job whose batch script keeps its registration (the line the plugin leaves in
# GAPTRAIN_REGISTRATION) in REGISTRATION, reads its progress from PROGRESS and runs until FINISH
# exists; grown into satellites on all 8 nodes once the regular job beside it ends. Its id is
# set in the caller's `job`.
elastic_keeping_its_registration() {  # elastic_keeping_its_registration REGISTRATION PROGRESS FINISH
  local blocker
  blocker=$(submit -p regular -N 6 -t 5 --wrap 'sleep 600')
  poll 60 "regular job $blocker RUNNING" job_state_is "$blocker" RUNNING
  job=$(submit -p elastic -N 1-8 --elastic=1-8 --elastic-cost=1:1 -t 30 \
    --wrap "printf '%s' \"\$GAPTRAIN_REGISTRATION\" >$1; exec $launch --poll-ms 250 --grace-s 5 --progress-file $2 -- bash -c 'until [ -e $3 ]; do sleep 1; done'")
  poll 60 "elastic job $job RUNNING" job_state_is "$job" RUNNING
  poll 60 "elastic job $job on the 2 idle nodes with a step on each" elastic_at "$job" 2
  scancel "$blocker"
  poll 90 "elastic job $job grown to 8 nodes (6 satellites)" elastic_at "$job" 8
  no_node_shared
  [ -s "$1" ] || fail "job $job's batch script found no GAPTRAIN_REGISTRATION"
}

# No step of JOB or its satellites stopped since STEPS (steps_of before) was taken.
same_steps() {  # same_steps JOB STEPS WHAT
  local now ended
  now=$(steps_of "$1")
  ended=$(ended_steps_of "$1")
  if [ "$now" != "$2" ] || [ -n "$ended" ]; then
    fail "$3 stopped or restarted steps of job $1:
before: $(echo "$2" | tr '\n' ' ')
now:    $(echo "$now" | tr '\n' ' ')
ended (sacct JobID|State|ExitCode): $(echo "$ended" | tr '\n' ' ')
launcher: $(tail -n 8 "$work/$1.out" | tr '\n' ';')"
  fi
}

# Registering a running job again is harmless (docs/protocol.md): the job's own registration,
# unchanged, sent 8 times while it trains on its batch host and 6 satellites. Each was
# answered ok, no step was stopped or restarted (before, the launcher was told the job held
# its batch host only and SIGTERMed the satellites' steps, 7 times of 8), the job keeps its 8
# nodes and its learned curve, and it ends COMPLETED.
case_reregister_on_satellites() {
  local job registration=$work/registration.json progress=$work/progress.jsonl
  local finish=$work/finish steps reply i
  write_progress "$progress"
  elastic_keeping_its_registration "$registration" "$progress" "$finish"
  poll 120 "job $job's curve learned from its progress" curve_source_is "$job" learned
  steps=$(steps_of "$job")
  [ "$(echo "$steps" | wc -l)" = 8 ] || fail "job $job runs $(echo "$steps" | wc -l) steps, not 8: $steps"
  for i in 1 2 3 4 5 6 7 8; do
    reply=$(munge -S "$GAPTRAIN_MUNGE_SOCKET" -s "$(cat "$registration")" |
      python3 "$here/send_line.py" "$GAPTRAIN_CONTROLLER")
    [ "$reply" = '{"ok":true}' ] || fail "registration $i of job $job again refused: $reply"
    # Long enough for the launcher's next reports (every 250 ms) to be answered in between.
    sleep 1
  done
  same_steps "$job" "$steps" "sending job $job's registration again"
  elastic_at "$job" 8 || fail "job $job no longer on 8 nodes after its registration was sent again: $(query_status "job($job)['nodes']")"
  curve_source_is "$job" learned ||
    fail "job $job's curve is $(query_status "job($job)['curve']['source']") after its registration was sent again"
  note "job $job: registration sent 8 times, still on 8 nodes, the same $(echo "$steps" | wc -l) steps, curve learned"
  touch "$finish"
  poll 120 "elastic job $job COMPLETED" job_state_is "$job" COMPLETED
}

# gaptraind stopped while a job trains on its batch host and 6 satellites, its state file
# removed, started again: it knows nothing of the job until the launcher's report is refused
# and the launcher registers it again. The job keeps its satellites from that registration on
# (no step SIGTERMed and restarted: the steps are the same and none ended), its curve is
# learned again from its progress, and it ends COMPLETED. (Before, the satellites' steps exited
# 143 and were started again a second later.)
case_fault_restart_without_state_on_satellites() {
  local job registration=$work/registration.json progress=$work/progress.jsonl
  local finish=$work/finish steps pid lines log=$GAPTRAIN_CLUSTER_DIR/log/gaptraind.log
  write_progress "$progress"
  elastic_keeping_its_registration "$registration" "$progress" "$finish"
  poll 120 "job $job's curve learned from its progress" curve_source_is "$job" learned
  steps=$(steps_of "$job")

  kill_gaptraind
  rm -f "$GAPTRAIN_CLUSTER_DIR/run/gaptraind-state.json"
  note "gaptraind (pid $pid) killed, its state file removed"
  lines=$(wc -l <"$log")
  "$here/../../scripts/local-cluster" start-controller --dir "$GAPTRAIN_CLUSTER_DIR" >/dev/null
  poll 90 "job $job registered again by its launcher" \
    logged_after "$log" "$lines" "msg=\"elastic job registered\" JOB_ID=$job "
  poll 60 "elastic job $job managed again on its 8 nodes" elastic_at "$job" 8
  poll 120 "job $job's curve learned again from its progress" curve_source_is "$job" learned
  # A few more reports answered by the restarted gaptraind.
  sleep 3
  elastic_at "$job" 8 || fail "job $job no longer on 8 nodes: $(query_status "job($job)['nodes']")"
  same_steps "$job" "$steps" "gaptraind's restart without its state file"
  grep -q 'job registered with the controller again' "$work/$job.out" ||
    fail "the launcher of job $job did not say it registered the job again: $(tail -n 8 "$work/$job.out" | tr '\n' ';')"
  note "job $job kept its $(echo "$steps" | wc -l) steps through the restart: $(grep 'registered with the controller again' "$work/$job.out" | tail -n 1)"
  touch "$finish"
  poll 120 "elastic job $job COMPLETED" job_state_is "$job" COMPLETED
}

# gaptraind's metrics (GAPTRAIN_METRICS), with Python's urllib: the release roots have no curl.
scrape_metrics() {
  python3 -c 'import sys, urllib.request; sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=10).read().decode())' \
    "${GAPTRAIN_METRICS:?the cluster names no GAPTRAIN_METRICS}"
}
# Whether gaptraind's metrics name a user or account.
metrics_name_owners() {
  scrape_metrics | grep -E '^gaptrain_elastic_node_seconds_total\{' | matches -E 'user=|account='
}
metrics_hide_owners() {
  scrape_metrics | matches -E '^gaptrain_elastic_node_seconds_total\{' && ! metrics_name_owners
}
# Whether nobody's `gaptrain status` lists elastic job JOB (a refusal for too many requests is
# waited out: nobody's requests are throttled).
nobody_lists() {  # nobody_lists JOB
  local json tries=0
  until json=$(setpriv --reuid=65534 --regid=65534 --clear-groups -- "$GAPTRAIN_CLI" status --json 2>/dev/null); do
    ((++tries < 10)) || return 2
    sleep 0.5
  done
  python3 -c 'import json, sys; sys.exit(0 if any(j["job_id"] == int(sys.argv[2]) for j in json.loads(sys.argv[1])["elastic_jobs"]) else 1)' "$json" "$1"
}
nobody_does_not_list() { ! nobody_lists "$1"; }

# slurm.conf's PrivateData set by `scontrol reconfigure` while an elastic job runs: the metrics'
# node-seconds drop their user and account labels (usage,users hide them from sshare and
# sacctmgr; anyone may scrape), and nobody's `gaptrain status` stops listing the job (jobs);
# lifted, both come back. How long each took after the reconfigure is printed: the delay
# docs/admin.md states.
case_private_data_metrics() {
  local job t0
  [ -n "${SLURM_CONF:-}" ] || fail "the cluster names no SLURM_CONF"
  job=$(submit_elastic "$idle_loop")
  poll 60 "elastic job $job RUNNING" job_state_is "$job" RUNNING
  poll 60 "elastic job $job registered" managed "$job"
  poll 60 "metrics to name job $job's user and account" metrics_name_owners
  poll 30 "nobody to see job $job without PrivateData" nobody_lists "$job"
  cleanup_steps+=("sed -i '/^PrivateData=/d' '$SLURM_CONF'; scontrol reconfigure")
  echo "PrivateData=jobs,usage,users" >>"$SLURM_CONF"
  t0=$(now)
  scontrol reconfigure
  poll 60 "metrics without user and account labels" metrics_hide_owners
  note "PrivateData=jobs,usage,users: metrics without owner labels $(printf '%.1f' "$(seconds_since "$t0")") s after scontrol reconfigure"
  poll 60 "nobody's gaptrain status to hide job $job" nobody_does_not_list "$job"
  note "PrivateData=jobs,usage,users: nobody's status hides job $job $(printf '%.1f' "$(seconds_since "$t0")") s after scontrol reconfigure"
  sed -i '/^PrivateData=/d' "$SLURM_CONF"
  t0=$(now)
  scontrol reconfigure
  poll 60 "metrics to name owners again" metrics_name_owners
  note "PrivateData lifted: owner labels back $(printf '%.1f' "$(seconds_since "$t0")") s after scontrol reconfigure"
  scancel "$job"
}

# The elastic queue backfills (docs/admin.md, "Queue policy"): a held job asking for the whole
# cluster (8-8) cannot start while a regular job and another elastic job hold nodes, and a
# 1-node job submitted after it is admitted past it (before, it waited "job N is ahead of it
# in the queue" until the big one was cancelled). Once the others end, the big job could start
# but for the small one: the small one gives way (requeued) and the big one runs.
case_queue_backfill() {
  local blocker first head small log=$GAPTRAIN_CLUSTER_DIR/log/gaptraind.log lines
  lines=$(wc -l <"$log")
  blocker=$(submit -p regular -N 5 -t 5 --wrap 'sleep 600')
  poll 60 "regular job $blocker RUNNING" job_state_is "$blocker" RUNNING
  first=$(submit --hold -p elastic -N 1-1 --elastic=1-1 -t 30 \
    --wrap "exec $launch --poll-ms 250 --grace-s 5 -- $idle_loop")
  poll 60 "held elastic job $first admitted and RUNNING" job_state_is "$first" RUNNING
  head=$(submit --hold -p elastic -N 8-8 --elastic=8-8 -t 30 \
    --wrap "exec $launch --poll-ms 250 --grace-s 5 -- $idle_loop")
  poll 60 "job $head to wait for 8 nodes" held_reason_has "$head" "waits for 8 nodes"
  small=$(submit --hold -p elastic -N 1-1 --elastic=1-1 -t 30 \
    --wrap "exec $launch --poll-ms 250 --grace-s 5 -- $idle_loop")
  poll 60 "job $small, behind job $head, admitted past it and RUNNING" job_state_is "$small" RUNNING
  job_state_is "$head" PENDING || fail "job $head is $(job_field "$head" JobState), not PENDING"
  note "job $small admitted past job $head ($(query_status "[q['reason'] for q in s.get('queue', []) if q['job_id'] == $head]"))"

  scancel "$blocker" "$first"
  poll 90 "job $small requeued for job $head" \
    logged_after "$log" "$lines" "ACTION=requeue JOB_ID=$small "
  poll 90 "job $head admitted and RUNNING on 8 nodes" job_state_is "$head" RUNNING
  note "job $head runs on $(job_field "$head" NodeList); job $small is $(job_field "$small" JobState)"
  scancel "$head" "$small"
}
