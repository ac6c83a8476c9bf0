# Grows and reclaims: an elastic job through holes opening and closing, ten rounds of it,
# notices before a drain, and a hostile local user beside it (a flood of requests, planted files).
# Sourced by run_elastic_case.sh (its helpers and the case's `work` in scope).
# shellcheck shell=bash
# shellcheck disable=SC2154 # launch, work, here and the cluster's variables are run_elastic_case.sh's

# An elastic job starts in the idle nodes, grows when a regular job ends, shrinks at once when a
# regular job needs its nodes (which starts within 5 s), keeps its batch host, grows back.
case_grow_and_reclaim() {
  local blocker job batch_host regular t0
  elastic_beside_blocker
  no_node_shared
  batch_host=$(job_field "$job" BatchHost)
  note "elastic job $job started on $(job_field "$job" NodeList), batch host $batch_host"

  t0=$(now)
  scancel "$blocker"
  poll 60 "elastic job $job grown to 8 nodes" elastic_at "$job" 8
  note "grown to 8 nodes $(seconds_since "$t0")s after the regular job was cancelled"
  no_node_shared

  regular=$(regular_starts_quickly 4 6 "$job" "$batch_host")
  poll 60 "elastic job $job on the 4 other nodes" elastic_at "$job" 4
  poll 60 "regular job $regular done" job_state_is "$regular" COMPLETED
  poll 60 "elastic job $job grown back to 8 nodes" elastic_at "$job" 8
  no_node_shared
  grep -qE "msg=\"action done\" ACTION=shrink JOB_ID=$job " "$GAPTRAIN_CLUSTER_DIR/log/gaptraind.log" ||
    fail "no shrink of job $job in gaptraind's log"
  # The same, as Prometheus sees it.
  (($(metric 'gaptrain_actions_total{action="shrink",result="done"}') >= 1)) ||
    fail "metrics show no shrink done"
  (($(metric 'gaptrain_reclaim_seconds_count') >= 1)) || fail "metrics show no reclaim latency"
  (($(metric 'gaptrain_elastic_jobs_managed') == 1)) || fail "metrics do not show the elastic job"
  note "metrics: $(metric 'gaptrain_actions_total{action="grow",result="done"}') grows," \
    "$(metric 'gaptrain_reclaim_seconds_count') reclaims"
}

# The hostile-user probe, as a hostile local user (nobody) would: garbage lines as fast as possible,
# 100 idle connections held open and 60 forged node events (authenticated as nobody) from the
# host root's elastic job and `gaptrain status` use too. Before, the refusals blocked the
# address 127.0.0.1 for 60 s: root's status got no answer and the job's launcher could not ack
# its drain. Now nobody's refusals block nobody (and garbage from the address): root's status is
# answered throughout, a regular job takes 4 nodes from the job within its bound, the job
# shrinks, grows back and is never requeued.
case_hostile_neighbour() {
  local job batch_host log lines credentials flood flood_pid regular
  log=$GAPTRAIN_CLUSTER_DIR/log/gaptraind.log
  elastic_grown_into_satellites "$idle_loop"
  batch_host=$(job_field "$job" BatchHost)
  lines=$(wc -l <"$log")
  credentials=$work/forged-events
  for _ in $(seq 60); do
    setpriv --reuid=65534 --regid=65534 --clear-groups -- munge -S "$GAPTRAIN_MUNGE_SOCKET" \
      -s "{\"v\":1,\"type\":\"node_freed\",\"job_id\":$job,\"node\":\"$batch_host\"}"
  done >"$credentials"
  chmod a+r "$credentials"
  flood=$work/flood.out
  touch "$work/flood-progress"
  chmod a+w "$work/flood-progress"
  # /usr/bin/python3: the PATH may lead root to an interpreter nobody cannot run.
  setpriv --reuid=65534 --regid=65534 --clear-groups -- \
    /usr/bin/python3 "$here/hostile_flood.py" "$GAPTRAIN_CONTROLLER" 300 100 "$credentials" \
    "$work/flood-progress" >"$flood" &
  flood_pid=$!
  cleanup_steps+=("kill $flood_pid 2>/dev/null || true")
  # 500 garbage lines: ten times what blocks a sender within the limiter's window.
  poll 60 "500 garbage lines sent" bash -c "(( \$(cat '$work/flood-progress' || echo 0) + 0 >= 500 ))"
  # Root is answered while the flood goes on.
  for _ in 1 2 3 4 5; do
    "$GAPTRAIN_CLI" status >/dev/null || fail "root's gaptrain status refused during the flood"
  done
  logged_after "$log" "$lines" 'sender blocked.*address 127.0.0.1' ||
    fail "the flooding address was not blocked: $(tail -n 3 "$log")"
  poll 30 "gaptraind to block uid 65534 for its forged events" \
    logged_after "$log" "$lines" 'sender blocked.*uid 65534'
  regular=$(regular_starts_quickly 4 30 "$job" "$batch_host") || exit 1
  poll 60 "elastic job $job on the 4 other nodes" elastic_at "$job" 4
  kill -0 "$flood_pid" 2>/dev/null || fail "the flood ended before the reclaim: $(cat "$flood")"
  kill -TERM "$flood_pid"
  wait "$flood_pid" || fail "the flood failed: $(cat "$flood")"
  note "flood: $(cat "$flood"); root's status was answered throughout"
  poll 60 "regular job $regular done" job_state_is "$regular" COMPLETED
  poll 90 "elastic job $job back on 8 nodes" elastic_at "$job" 8
  [ "$(job_field "$job" Restarts)" = 0 ] || fail "elastic job $job was requeued"
  job_state_is "$job" RUNNING || fail "elastic job $job is not running"
}

# Another local user (uid 65534) plants files where a job's files once went: in the shared
# directory (mode 0777) the job is submitted from, a link at the host file's and the job file's
# temporary names to a file of the job's user, and a world-writable progress file claiming 2e12
# samples; in /tmp, the same names for the fallback. The job's files go to a private directory
# of its own instead: the linked file is untouched, nothing is read from the planted progress
# file, the job's progress is its own, its output says once where its files are and never that
# it cannot write them, and it ends COMPLETED.
samples_done_is() {  # samples_done_is JOB VALUE: gaptraind's samples_done of JOB
  [ "$(query_status "job($1)['samples_done'] if job($1) else None")" = "$2" ]
}

case_hostile_files() {
  local shared=$work/shared victim=$work/model.pt flag=$work/flag job out planted name
  mkdir -p "$shared"
  chmod 0777 "$shared"
  echo weights >"$victim"
  chmod 0600 "$victim"
  job=$(submit -p elastic -N 1 --elastic=1-1 -t 3 -H -D "$shared" \
    --wrap "exec $launch --poll-ms 250 -- bash -c '
      for i in 1 2 3; do echo \"{\\\"samples_done\\\": \$((i * 100))}\" >>\"\$GAPTRAIN_PROGRESS_FILE\"; done
      for i in \$(seq 600); do [ -e $flag ] && exit 0; sleep 0.1; done; exit 1'")
  out=$work/$job.out
  planted=("/tmp/gaptrain-hosts.$job.tmp" "/tmp/gaptrain-job.$job.json.tmp" "/tmp/gaptrain-progress.$job.jsonl")
  cleanup_steps+=("rm -f ${planted[*]}")
  for name in "$shared/gaptrain-hosts.$job.tmp" "$shared/gaptrain-job.$job.json.tmp" \
    "/tmp/gaptrain-hosts.$job.tmp" "/tmp/gaptrain-job.$job.json.tmp"; do
    setpriv --reuid=65534 --regid=65534 --clear-groups -- ln -s "$victim" "$name"
  done
  for name in "$shared/gaptrain-progress.$job.jsonl" "/tmp/gaptrain-progress.$job.jsonl"; do
    # shellcheck disable=SC2016 # $1 is the inner bash's argument
    setpriv --reuid=65534 --regid=65534 --clear-groups -- \
      bash -c 'echo "{\"samples_done\": 2e12}" >"$1" && chmod 0666 "$1"' _ "$name"
  done
  scontrol release "$job"
  poll 60 "elastic job $job RUNNING" job_state_is "$job" RUNNING
  poll 60 "job $job's own progress (300 samples) reported" samples_done_is "$job" 300.0
  touch "$flag"
  poll 60 "job $job COMPLETED" job_state_is "$job" COMPLETED
  [ "$(cat "$victim")" = weights ] || fail "the job wrote into its user's file: $(cat "$victim")"
  for name in "$shared/gaptrain-progress.$job.jsonl" "/tmp/gaptrain-progress.$job.jsonl"; do
    [ "$(cat "$name")" = '{"samples_done": 2e12}' ] || fail "the job wrote into $name: $(cat "$name")"
  done
  [ "$(grep -c "the job's files are in" "$out")" = 1 ] ||
    fail "where the job's files are was not said once: $(cat "$out")"
  ! grep -q "cannot update\|progress not taken\|2e+12" "$out" ||
    fail "the job met the planted files: $(grep "cannot update\|progress not taken\|2e+12" "$out" | head -n 3)"
  note "$(grep "the job's files are in" "$out" | cut -c1-200)"
  # A host file that cannot be written (here: a directory nobody can create files in) is said
  # once, not at every pass of the launcher's loop (every 50 ms here) for the job's whole life.
  job=$(submit -p elastic -N 1 --elastic=1-1 -t 3 --export=ALL,GAPTRAIN_HOSTFILE=/proc/gaptrain-hosts \
    --wrap "exec $launch --poll-ms 50 -- sleep 3")
  out=$work/$job.out
  poll 60 "job $job COMPLETED" job_state_is "$job" COMPLETED
  [ "$(grep -c "cannot update the host file" "$out")" = 1 ] ||
    fail "the host file's failure was not said once: $(grep -c "cannot update the host file" "$out") times"
}

# Ten rounds of a regular job taking 1 to 5 nodes from a running elastic job and giving them
# back: every regular job starts within 5 s, no node is ever held twice, the elastic job keeps
# its batch host and its training steps, and returns to 8 nodes each time.
case_ten_cycles() {
  local job batch_host cycle regular nodes
  job=$(elastic_on_all_nodes)
  batch_host=$(job_field "$job" BatchHost)
  for cycle in $(seq 1 10); do
    nodes=$((cycle % 5 + 1))
    regular=$(regular_starts_quickly "$nodes" 3 "$job" "$batch_host")
    poll 60 "cycle $cycle: regular job $regular done" job_state_is "$regular" COMPLETED
    poll 90 "cycle $cycle: elastic job $job back to 8 nodes" elastic_at "$job" 8
    no_node_shared
    note "cycle $cycle: $nodes nodes given and taken back"
  done
  job_state_is "$job" RUNNING
  [ "$(job_field "$job" Restarts)" = 0 ] || fail "elastic job $job was requeued"
}

# Notice: a regular job that backfill plans on all 8 nodes once a regular job on 6 of
# them ends (in 10 minutes, past the elastic job's lease) is noticed to the elastic job on the
# other 2 (--elastic-notice=600) before any drain: its launcher's reply names both nodes with the
# planned start. When the blocker is cancelled the regular job waits for those nodes now: they
# are drained and it starts within 5 s, as without notice.
# The regular job REGULAR, planned behind BLOCKER, starts within max_start_s of BLOCKER's
# cancellation: its nodes' notices held nothing back.
starts_when_its_blocker_ends() {  # starts_when_its_blocker_ends BLOCKER REGULAR
  local t0 waited
  t0=$(now)
  scancel "$1"
  poll 60 "regular job $2 RUNNING" job_state_is "$2" RUNNING
  waited=$(seconds_since "$t0")
  note "regular job $2 started ${waited}s after its blocker was cancelled"
  (($(echo "$waited <= $max_start_s" | bc))) ||
    fail "regular job $2 started ${waited}s after the blocker ended (> ${max_start_s}s)"
}

case_notice_before_drain() {
  local blocker job regular log lines reply node planned
  log=$GAPTRAIN_CLUSTER_DIR/log/gaptraind.log
  lines=$(wc -l <"$log")
  blocker=$(submit -p regular -N 6 -t 10 --wrap 'sleep 600')
  poll 60 "regular job $blocker RUNNING" job_state_is "$blocker" RUNNING
  job=$(submit_elastic "$idle_loop" --elastic-notice=600)
  poll 60 "elastic job $job RUNNING" job_state_is "$job" RUNNING
  poll 60 "elastic job $job on the 2 idle nodes with a step on each" elastic_at "$job" 2
  regular=$(submit -p regular -N 8 -t 2 --wrap 'sleep 2')
  poll 60 "a notice to job $job of a node regular job $regular is planned on" \
    logged_after "$log" "$lines" "msg=\"notice given\" ACTION=notice JOB_ID=$job "
  ! logged_after "$log" "$lines" "msg=\"drain requested\" ACTION=[a-z]* JOB_ID=$job " ||
    fail "job $job was drained before the regular job could start: the notice came with the drain"
  # What its launcher is told: a report as the launcher sends it, answered with the instruction.
  reply=$(munge -S "$GAPTRAIN_MUNGE_SOCKET" -s \
    "{\"v\":1,\"type\":\"launcher\",\"job_id\":$job,\"running\":[$(query_status \
      "','.join(chr(34) + n + chr(34) for n in job($job)['running'])")],\"drained\":[],\"samples_done\":null}" |
    python3 "$here/send_line.py" "$GAPTRAIN_CONTROLLER")
  planned=$(job_field "$regular" StartTime)
  for node in $(query_status "job($job)['nodes']"); do
    python3 -c 'import json, sys; sys.exit(0 if sys.argv[2] in json.loads(sys.argv[1])["launch"].get("notice", {}) else 1)' \
      "$reply" "$node" || fail "the launcher's reply has no notice for $node (regular job $regular planned $planned): $reply"
  done
  note "job $job told before any drain: $reply (regular job $regular planned $planned)"
  starts_when_its_blocker_ends "$blocker" "$regular"
  logged_after "$log" "$lines" "msg=\"drain requested\" ACTION=[a-z]* JOB_ID=$job " ||
    fail "job $job was never drained for regular job $regular"
  no_node_shared
}
