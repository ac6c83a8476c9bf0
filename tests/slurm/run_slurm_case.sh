#!/usr/bin/env bash
# Test cases against the real local Slurm cluster of the `slurm_cluster` ctest fixture.
#   run_slurm_case.sh ENV_SH CASE
# ENV_SH is the fixture's env.sh (SLURM_CONF and the GAPTRAIN_* variables). Exits 0 on
# success, 1 on failure, 77 (ctest: skipped) when not root, or for the cases that need the
# plugin and gaptraind when the cluster runs without them. Never sleeps blindly: every wait
# polls a condition with a deadline, and no assertion is about how long something took
# (tests/bench/slurm_latency.sh measures that).
# GAPTRAIN_CLI (set by CMake) is the `gaptrain` binary, for `gaptrain status --json`.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
local_cluster=$here/../../scripts/local-cluster

env_sh=${1:?usage: $0 ENV_SH CASE}
case_name=${2:?usage: $0 ENV_SH CASE}
# shellcheck source=case_lib.sh
source "$here/case_lib.sh"
case_setup "$env_sh"

job_num_nodes_is() { [ "$(job_field "$1" NumNodes)" = "$2" ]; }
sacct_state_is() {  # sacct_state_is JOBID STATE: the accounting record (slurmdbd) agrees
  [ "$(sacct -n -X -P -j "$1" -o State 2>/dev/null | head -n1)" = "$2" ]
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

# ---------------------------------------------------------------------------------------
# The plugin and gaptraind (the issue's "Must show" list).

daemon_log() { echo "$GAPTRAIN_CLUSTER_DIR/log/gaptraind.log"; }

# Skips (77) a case that needs spank_gaptrain.so when the fixture cluster runs without it
# (configured before it was built); require_gaptrain (case_lib.sh) also needs gaptraind.
need_plugin() {
  [ -s "$GAPTRAIN_CLUSTER_DIR/etc/plugstack.conf" ] || {
    echo "SKIP: the cluster runs without spank_gaptrain.so" >&2; exit 77; }
}

status_json() { "$GAPTRAIN_CLI" status --json; }

holes() { query_status '[h["node"] for h in s["holes"]]'; }
is_hole() { holes | matches -x -- "$1"; }
not_hole() { status_json >/dev/null && ! is_hole "$1"; }
events() { query_status "s['events']['$1']"; }  # events accepted|rejected
events_above() { [ "$(events "$1")" -gt "$2" ]; }
last_poll_after() { [ "$(query_status "s['last_poll'] or 0")" -gt "$1" ]; }

log_has() { grep -qF -- "$2" "$1"; }  # log_has FILE TEXT

slurmd_logs() { cat "$GAPTRAIN_CLUSTER_DIR"/log/slurmd-n*.log; }
slurmd_logs_have() { grep -qF -- "$1" "$GAPTRAIN_CLUSTER_DIR"/log/slurmd-n*.log; }

# A job that runs until `touch FLAG`: its end is under the test's control.
flag_job() {  # flag_job FLAG SBATCH-ARGS...: prints the job id
  local flag=$1; shift
  rm -f "$flag"
  submit -o /dev/null "$@" --wrap "while [ ! -e $flag ]; do sleep 0.1; done"
}

# A munge credential around PAYLOAD, sealed as root or (AS=nobody) as uid 65534.
credential() {  # credential root|nobody PAYLOAD
  if [ "$1" = nobody ]; then
    setpriv --reuid=65534 --regid=65534 --clear-groups -- munge -S "$GAPTRAIN_MUNGE_SOCKET" -s "$2"
  else
    munge -S "$GAPTRAIN_MUNGE_SOCKET" -s "$2"
  fi
}
send_line() { python3 "$here/send_line.py" "$GAPTRAIN_CONTROLLER"; }

# 1. The three options are in the help of the commands that submit jobs.
case_help_lists_options() {
  need_plugin
  local cmd opt help
  for cmd in sbatch srun salloc; do
    help=$($cmd --help 2>&1) || fail "$cmd --help failed: $help"
    for opt in '--elastic=\[MIN-MAX\]' '--elastic-curve=FILE' '--elastic-cost=UP:DOWN' \
      '--elastic-notice=S' '--elastic-batch=M0:MAX\[:PERNODE\]' '--elastic-noise-scale=PHI'; do
      grep -qE -- "^ +$opt( |$)" <<<"$help" || fail "$cmd --help does not list $opt"
    done
  done
  note "sbatch, srun and salloc --help list --elastic, --elastic-curve, --elastic-cost, --elastic-notice, --elastic-batch, --elastic-noise-scale"
}

# refused EXPECTED-STDERR CMD...: CMD fails, prints EXPECTED-STDERR as one line of stderr, and
# no job is created.
refused() {
  local expected=$1; shift
  local before after err rc=0
  before=$(squeue -h -o %i | sort)
  err=$("$@" 2>&1 >/dev/null) || rc=$?
  [ "$rc" -ne 0 ] || fail "'$*' succeeded; expected a refusal"
  grep -qxF -- "$expected" <<<"$err" || fail "'$*' did not print the line
  $expected
it printed:
$err"
  after=$(squeue -h -o %i | sort)
  [ "$before" = "$after" ] || fail "'$*' created a job: squeue had [$before], now [$after]"
  note "refused (exit $rc): $*"
}

# 2. Bad option values fail at submission with gaptrain's one-line message; no job is made.
case_bad_options_refused() {
  need_plugin
  local curve=$GAPTRAIN_CLUSTER_DIR/test-bad-curve.csv missing=$GAPTRAIN_CLUSTER_DIR/no-such-curve.csv
  local good=$GAPTRAIN_CLUSTER_DIR/test-good-curve.csv
  printf 'nodes,samples_per_s\n1,abc\n' >"$curve"
  printf 'nodes,samples_per_s\n1,100\n2,190\n' >"$good"
  rm -f "$missing"
  refused 'sbatch: error: gaptrain: --elastic-cost: expected UP:DOWN seconds (non-negative numbers), got "x"' \
    sbatch --elastic --elastic-cost=x --wrap true
  refused "sbatch: error: gaptrain: --elastic-curve: cannot read \"$missing\": No such file or directory" \
    sbatch --elastic --elastic-curve="$missing" --wrap true
  refused "sbatch: error: gaptrain: --elastic-curve: $curve line 2: expected \"nodes,samples_per_s\", got \"1,abc\"" \
    sbatch --elastic --elastic-curve="$curve" --wrap true
  # A named pipe held the user's sbatch forever: refused at once, as not a file.
  local fifo=$GAPTRAIN_CLUSTER_DIR/test-curve.fifo
  rm -f "$fifo"
  mkfifo "$fifo"
  refused "sbatch: error: gaptrain: --elastic-curve: cannot read \"$fifo\": it is a named pipe (FIFO), not a regular file" \
    sbatch --elastic=1-2 --elastic-curve="$fifo" --wrap true
  rm -f "$fifo"
  refused 'sbatch: error: gaptrain: --elastic-cost only applies to elastic jobs: add --elastic (e.g. -N 2-8 --elastic=2-8)' \
    sbatch --elastic-cost=1:2 --wrap true
  refused 'sbatch: error: gaptrain: --elastic-notice: expected seconds from 0 to 86400 (a day), got "soon"' \
    sbatch --elastic --elastic-notice=soon --wrap true
  refused 'sbatch: error: gaptrain: --elastic-notice only applies to elastic jobs: add --elastic (e.g. -N 2-8 --elastic=2-8)' \
    sbatch --elastic-notice=60 --wrap true
  refused 'sbatch: error: gaptrain: --elastic-curve only applies to elastic jobs: add --elastic (e.g. -N 2-8 --elastic=2-8)' \
    sbatch --elastic-curve="$good" --wrap true
  # The batch range and noise scale: bad values say what to write; both need --elastic,
  # the noise scale a batch range.
  refused 'sbatch: error: gaptrain: --elastic-batch: expected M0:MAX or M0:MAX:PERNODE, whole numbers of samples with 1 <= M0 <= MAX and PERNODE >= 1 (e.g. 128:4096:256), got "big"' \
    sbatch --elastic --elastic-batch=big --wrap true
  refused 'sbatch: error: gaptrain: --elastic-batch: the largest batch MAX must be from M0 (256) to 1000000000 samples, got 128 (write M0:MAX[:PERNODE], e.g. 128:4096:256)' \
    sbatch --elastic --elastic-batch=256:128 --wrap true
  refused 'sbatch: error: gaptrain: --elastic-noise-scale: expected the gradient noise scale in samples at M0, a number from 0 to 1e15 (leave it out to have it learned), got "high"' \
    sbatch --elastic --elastic-batch=128:4096 --elastic-noise-scale=high --wrap true
  refused 'sbatch: error: gaptrain: --elastic-batch only applies to elastic jobs: add --elastic (e.g. -N 2-8 --elastic=2-8)' \
    sbatch --elastic-batch=128:4096 --wrap true
  refused 'sbatch: error: gaptrain: --elastic-noise-scale only applies to a job with a batch range: add --elastic-batch=M0:MAX (e.g. --elastic-batch=128:4096)' \
    sbatch --elastic --elastic-noise-scale=900 --wrap true
  refused 'sbatch: error: gaptrain: --elastic: expected a node range MIN-MAX (1 <= MIN <= MAX), MIN-MAX:STEP or a list of counts (2,4,8), got "5-2"' \
    sbatch --elastic=5-2 --wrap true
  # A node count beyond any cluster (it once ran the daemon's tables and loops away).
  refused "sbatch: error: gaptrain: --elastic: MAX 2000000000 is more nodes than any cluster has (at most 100000): give at most the elastic partition's node count" \
    sbatch --elastic=1-2000000000 --wrap true
  # srun and salloc check the same way before they ask for an allocation.
  refused 'srun: error: gaptrain: --elastic-cost: expected UP:DOWN seconds (non-negative numbers), got "x"' \
    srun --elastic --elastic-cost=x true
  refused 'salloc: error: gaptrain: --elastic-cost: expected UP:DOWN seconds (non-negative numbers), got "x"' \
    salloc --elastic --elastic-cost=x true
  rm -f "$curve" "$good"
}

# 2b. Bad plugstack.conf arguments fail closed: the plugin refuses to load with one line naming
# the argument. sbatch then does not know --elastic (the job is not run without gaptrain), a
# regular job still runs, and its prolog on the node logs the same refusal. The key is unique
# per run, so the slurmd log line found is this run's.
case_bad_plugin_args_refused() {
  need_plugin
  local conf=$GAPTRAIN_CLUSTER_DIR/etc/plugstack.conf key="timeot_ms_$$" line id node err
  cp "$conf" "$conf.good"
  cleanup_steps+=("mv -f \"$conf.good\" \"$conf\"")
  grep -q ' timeout_ms=[0-9]' "$conf" || fail "$conf has no timeout_ms= to misspell"
  sed -i "s/ timeout_ms=[0-9]*/ $key=50/" "$conf"
  line="gaptrain: plugstack.conf argument \"$key=50\": unknown key; known: controller=, munge_socket=, timeout_ms=; the plugin is not loaded"
  refused "sbatch: error: $line" sbatch --elastic --wrap true
  err=$(sbatch --elastic --wrap true 2>&1 >/dev/null) || true
  grep -qxF -- "sbatch: unrecognized option '--elastic'" <<<"$err" ||
    fail "sbatch did not refuse --elastic as unknown: $err"
  id=$(submit -o /dev/null -N1 -t 2 --wrap true)
  poll 60 "job $id COMPLETED" job_state_is "$id" COMPLETED
  node=$(job_field "$id" NodeList)
  grep -qF -- "error: $line" "$GAPTRAIN_CLUSTER_DIR/log/slurmd-$node.log" ||
    fail "slurmd's log of $node has no refusal line from job $id's prolog"
  note "refused: $line; regular job $id COMPLETED on $node"
}

# 3. A regular job's end makes its node a hole in `gaptrain status`, and the plugin's events
# (prolog node_taken, epilog node_freed) reach the daemon.
case_hole_after_job() {
  require_gaptrain
  local flag=$GAPTRAIN_CLUSTER_DIR/test-hole-flag job
  job=$(flag_job "$flag" --exclusive -N1 -w n1 -t 2)
  note "job $job submitted"
  poll 60 "job $job RUNNING" job_state_is "$job" RUNNING
  poll 60 "n1 to stop being a hole while job $job runs" not_hole n1
  # The prolog's event: "node taken", or "hole reclaimed" when it came before the poll did.
  poll 60 "the prolog's node_taken event of job $job in $(daemon_log)" \
    grep -qE "msg=\"(node taken|hole reclaimed)\" JOB_ID=$job NODE=n1 UID=0" "$(daemon_log)"
  touch "$flag"
  poll 60 "job $job COMPLETED" job_state_is "$job" COMPLETED
  poll 60 "n1 to be a hole after job $job ended" is_hole n1
  poll 60 "the epilog's node_freed event of job $job in $(daemon_log)" \
    log_has "$(daemon_log)" "msg=\"node freed\" JOB_ID=$job NODE=n1 UID=0"
  ! slurmd_logs_have "gaptrain: job $job node n1:" ||
    fail "the plugin reported a problem for job $job: $(slurmd_logs | grep -F "gaptrain: job $job ")"
  rm -f "$flag"
  note "n1 is a hole again; daemon log: $(grep -E "JOB_ID=$job " "$(daemon_log)" | tr '\n' ' ')"
}

epoch_of() { date -d "$1" +%s; }  # a time as scontrol prints it (local time)

# The holes on NODES end when pending job JOB starts: predicted_end is its StartTime (to the
# second, bf_resolution=1) and next_job is JOB. Prints what differs.
holes_end_at_job() {  # holes_end_at_job JOB NODES...
  local job=$1; shift
  local start
  start=$(job_field "$job" StartTime)
  [[ $start == [0-9]* ]] || { echo "job $job has StartTime=$start"; return 1; }
  query_status "(
[f'{n}: not a hole' for n in '$*'.split() if n not in {h['node'] for h in s['holes']}] +
[f\"{h['node']}: predicted_end={h['predicted_end']} next_job={h['next_job']}, want {$(epoch_of "$start")} and $job\"
 for h in s['holes'] if h['node'] in '$*'.split() and (h['predicted_end'] is None or
 abs(h['predicted_end'] - $(epoch_of "$start")) > 1 or h['next_job'] != $job)])" \
    >"$mismatch_file" || return 1
  [ ! -s "$mismatch_file" ]
}

job_planned() {  # backfill gave the pending job a start time and nodes
  [ "$(job_field "$1" JobState)" = PENDING ] && [[ $(job_field "$1" StartTime) == [0-9]* ]] &&
    [ -n "$(job_field "$1" SchedNodeList)" ] && [ "$(job_field "$1" SchedNodeList)" != "(null)" ]
}

# 4. A pending job planned by backfill bounds the holes on the nodes it will take.
case_backfill_hole_end() {
  require_gaptrain
  local blocker job sched idle=() n
  mismatch_file=$(mktemp)
  cleanup_steps+=("rm -f $mismatch_file")
  blocker=$(submit -o /dev/null --exclusive -N1 -w n1 -t 3 --wrap 'sleep 300')
  poll 60 "job $blocker RUNNING" job_state_is "$blocker" RUNNING
  # Needs all 4 nodes, so it waits for the blocker's time limit; backfill plans it then.
  job=$(submit -o /dev/null --exclusive -N4 -t 2 --wrap true)
  poll 60 "backfill to plan job $job (StartTime, SchedNodeList)" job_planned "$job"
  sched=$(job_field "$job" SchedNodeList)
  for n in $(scontrol show hostnames "$sched"); do
    [ "$n" = n1 ] || idle+=("$n")
  done
  [ ${#idle[@]} -gt 0 ] || fail "job $job is planned on $sched only"
  note "job $job planned at $(job_field "$job" StartTime) on $sched; holes on ${idle[*]}"
  if ! poll_quiet 60 holes_end_at_job "$job" "${idle[@]}"; then
    fail "holes do not end at job $job's start: $(cat "$mismatch_file"); job: $(scontrol show job -o "$job")"
  fi
  note "holes on ${idle[*]} end at $(job_field "$job" StartTime) ($(epoch_of "$(job_field "$job" StartTime)")), next_job $job"
}

# poll_quiet SECONDS CMD...: like poll, but returns 1 on the deadline so that the caller can
# say what was wrong.
poll_quiet() {
  local deadline=$((SECONDS + $1)); shift
  until "$@"; do
    ((SECONDS < deadline)) || return 1
    sleep 0.2
  done
}

# 5. Node events are authenticated: the plugin's arrive as uid 0 and are counted; a node event
# sealed by another user, a replayed credential and a line that is no credential are refused,
# logged with their reason and uid, counted, and change no hole.
case_event_authentication() {
  require_gaptrain
  local flag=$GAPTRAIN_CLUSTER_DIR/test-auth-flag job accepted rejected reply t cred log
  log=$(daemon_log)
  accepted=$(events accepted) rejected=$(events rejected)
  job=$(flag_job "$flag" --exclusive -N1 -w n1 -t 2)
  poll 60 "job $job RUNNING" job_state_is "$job" RUNNING
  poll 60 "the plugin's node_taken of job $job logged with UID=0" \
    grep -qE "msg=\"(node taken|hole reclaimed)\" JOB_ID=$job NODE=n1 UID=0 " "$log"
  poll 60 "events.accepted above $accepted" events_above accepted "$accepted"
  poll 60 "n1 to stop being a hole" not_hole n1

  # A node_freed for the running job, sealed by nobody: as if n1 had become free.
  t=$(date +%s)
  reply=$(credential nobody "{\"v\":1,\"type\":\"node_freed\",\"job_id\":$job,\"node\":\"n1\"}" | send_line)
  [[ $reply == *'"ok":false'* && $reply == *'not uid 65534'* ]] || fail "forged node_freed: reply $reply"
  poll 60 "the forged event logged with UID=65534 and a REASON" \
    grep -qE 'msg="request rejected" UID=65534 REASON=.*REQUEST=node_freed' "$log"
  poll 60 "events.rejected above $rejected" events_above rejected "$rejected"
  rejected=$(events rejected)
  # The next full poll of Slurm still sees n1 taken (and the forged event triggered nothing).
  poll 60 "a poll after the forged event" last_poll_after "$((t + 1))"
  job_state_is "$job" RUNNING || fail "job $job not running"
  ! is_hole n1 || fail "n1 became a hole after the forged node_freed"

  # A register for root's job, sealed by nobody.
  reply=$(credential nobody "{\"v\":1,\"type\":\"register\",\"job_id\":$job,\"user\":\"root\",\"batch_host\":\"n1\",\"min_nodes\":1,\"max_nodes\":2,\"curve\":[],\"up_cost_s\":null,\"down_cost_s\":null}" | send_line)
  [[ $reply == *'"ok":false'* && $reply == *'not uid 65534'* ]] || fail "forged register: reply $reply"
  poll 60 "the forged register logged" grep -qE 'msg="request rejected" UID=65534 REASON=.*REQUEST=register' "$log"
  [ "$(query_status 'len(s["elastic_jobs"])')" = 0 ] || fail "the forged register made an elastic job"

  # A line that is no munge credential.
  reply=$(echo "garbage $job" | send_line)
  [[ $reply == *'"ok":false'* && $reply == *'not authenticated'* ]] || fail "garbage line: reply $reply"
  # A valid credential sent twice: munge refuses the replay.
  cred=$(credential root '{"v":1,"type":"status"}')
  reply=$(send_line <<<"$cred")
  [[ $reply == *'"ok":true'* ]] || fail "status request: reply $reply"
  reply=$(send_line <<<"$cred")
  [[ $reply == *'"ok":false'* && $reply == *'Replayed'* ]] || fail "replayed credential: reply $reply"
  poll 60 "the garbage line logged as not authenticated" \
    grep -qE 'msg="request rejected" UID=unknown REASON="not authenticated: the request is not a munge credential' "$log"
  poll 60 "the replay logged" grep -qE 'msg="request rejected" UID=unknown REASON="not authenticated: [^"]*Replayed' "$log"
  poll 60 "events.rejected to count both" events_above rejected "$((rejected + 1))"
  ! is_hole n1 || fail "n1 became a hole while job $job runs"
  touch "$flag"
  poll 60 "job $job COMPLETED" job_state_is "$job" COMPLETED
  rm -f "$flag"
  note "accepted $accepted -> $(events accepted), rejected -> $(events rejected)"
}

controller_answers() { "$GAPTRAIN_CLI" status >/dev/null 2>&1; }

# 6. With gaptraind stopped, regular and elastic jobs run and complete; the plugin logs one
# "not delivered" line per event in slurmd's log. The controller is started again afterwards
# (also when the case fails), so later cases find it.
case_controller_down() {
  require_gaptrain
  local regular elastic id node
  "$local_cluster" stop-controller --dir "$GAPTRAIN_CLUSTER_DIR"
  cleanup_steps+=("\"$local_cluster\" start-controller --dir \"$GAPTRAIN_CLUSTER_DIR\"")
  ! controller_answers || fail "gaptraind still answers after stop-controller"
  regular=$(submit -o /dev/null --exclusive -N1 -t 2 --wrap true)
  elastic=$(submit -o /dev/null -p elastic --elastic --exclusive -N1 -t 2 --wrap true)
  note "jobs $regular (regular) and $elastic (--elastic) submitted"
  for id in "$regular" "$elastic"; do
    poll 60 "job $id COMPLETED" job_state_is "$id" COMPLETED
    poll 30 "sacct to report job $id COMPLETED" sacct_state_is "$id" COMPLETED
    [ "$(job_field "$id" ExitCode)" = 0:0 ] || fail "job $id exit code $(job_field "$id" ExitCode)"
    node=$(job_field "$id" NodeList)
    for event in node_taken node_freed; do
      poll 60 "slurmd's log to say job $id's $event was not delivered" \
        slurmd_logs_have "gaptrain: job $id node $node: $event not delivered ("
    done
  done
  node=$(job_field "$elastic" NodeList)
  poll 60 "slurmd's log to say job $elastic's register was not delivered" \
    slurmd_logs_have "gaptrain: job $elastic node $node: register not delivered ("
  note "$(slurmd_logs | grep -E "gaptrain: job ($regular|$elastic) " | sed 's/^.*gaptrain: /gaptrain: /' | tr '\n' ';')"
  "$local_cluster" start-controller --dir "$GAPTRAIN_CLUSTER_DIR"
  poll 60 "gaptraind to answer again" controller_answers
}

# slurmctld stopped: gaptraind's polls wait in libslurm's retries (about
# MessageTimeout, 10 s here) on its Slurm worker, and meanwhile `gaptrain status` answers and
# plugin events are acknowledged. The 5 s client timeout is well below what a waiting poll
# takes (gaptraind 2e643ec answered after 9 s and 18 s); no assertion is about how long
# anything took: the latencies are only noted. Credentials are sealed beforehand (timed_requests.py).
case_slurmctld_down() {
  require_gaptrain
  local event status requests=() out
  event='{"v":1,"type":"node_freed","job_id":1,"node":"n1"}'
  status='{"v":1,"type":"status"}'
  # shellcheck disable=SC2016 # eval'd at each poll: the query runs then, not now
  poll 60 "gaptraind to see Slurm" eval '[ "$(query_status "s[\"slurm_error\"]")" = None ]'
  # The first event makes gaptraind poll at once: that poll then waits for slurmctld.
  requests+=("$(credential root "$event")")
  for _ in 1 2 3 4 5; do
    requests+=("$(credential root "$status")" "$(credential root "$event")")
  done
  cleanup_steps+=("\"$local_cluster\" start-slurmctld --dir \"$GAPTRAIN_CLUSTER_DIR\" 2>/dev/null")
  "$local_cluster" stop-slurmctld --dir "$GAPTRAIN_CLUSTER_DIR" 2>/dev/null
  out=$(python3 "$here/timed_requests.py" "$GAPTRAIN_CONTROLLER" 5 0.5 "${requests[@]}") ||
    fail "with slurmctld stopped (requests: event, then status and event in turn): $(echo "$out" | tail -n1)"
  "$GAPTRAIN_CLI" status --timeout 5 >/dev/null ||
    fail "gaptrain status did not answer within 5 s while slurmctld is stopped"
  # shellcheck disable=SC2016 # eval'd at each poll: the query runs then, not now
  poll 60 "gaptrain status to say Slurm does not answer" \
    eval '[ "$(query_status "s[\"slurm_error\"]")" != None ]'
  note "slurmctld stopped; event, then status and event in turn: $(echo "$out" | sed 's/^request [0-9]*: //' | tr '\n' ' ')"
  "$local_cluster" start-slurmctld --dir "$GAPTRAIN_CLUSTER_DIR" 2>/dev/null
  # shellcheck disable=SC2016 # eval'd at each poll: the query runs then, not now
  poll 120 "gaptraind to poll Slurm again" eval '[ "$(query_status "s[\"slurm_error\"]")" = None ]'
}

# As uid 65534 (nobody): another user than the root who submits the other jobs.
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups -- "$@"; }
nobody_job() {  # nobody_job SBATCH-ARGS...: prints the job id (-D /tmp: the tree is root's)
  local id
  id=$(as_nobody sbatch --parsable -D /tmp -o /dev/null "$@") || fail "sbatch as nobody failed"
  id=${id%%;*}
  # shellcheck disable=SC2154 # case_lib.sh's list of the jobs to cancel at exit
  echo "$id" >>"$jobs_file"
  echo "$id"
}
# nobody's `gaptrain status --json`, evaluated as query_status does (PYTHON-EXPRESSION; also
# on(NODE): the job ids listed on NODE).
query_status_as_nobody() {
  local json error tries=0
  # nobody's requests are throttled (2 a second, bursts of 10): a poll of a condition uses up the
  # burst, so a refusal for that reason is waited out rather than taken for an answer.
  until json=$(as_nobody "$GAPTRAIN_CLI" status --json 2>"$GAPTRAIN_CLUSTER_DIR/nobody-status.err"); do
    error=$(cat "$GAPTRAIN_CLUSTER_DIR/nobody-status.err")
    { [[ $error == *"too many status requests"* ]] && ((++tries < 10)); } || { echo "$error" >&2; return 1; }
    sleep 1
  done
  python3 -c '
import json, sys
s = json.loads(sys.argv[2])
def job(i):
    return next((j for j in s["elastic_jobs"] if j["job_id"] == i), None)
def on(node):
    return next(n["jobs"] for n in s["nodes"] if n["name"] == node)
print(eval(sys.argv[1]))' "$1" "$json"
}
nobody_sees_no_job() { [ "$(query_status_as_nobody "job($1) is None and on('n1') == []")" = True ]; }
nobody_sees_job() { [ "$(query_status_as_nobody "job($1) is not None")" = True ]; }
job_running() { job_state_is "$1" RUNNING; }

# Sends each credential of FILE (one a line) as its own request, one after the other, and
# prints how many were answered ok and how many refused as too many status requests.
send_each() {  # send_each FILE
  PYTHONPATH=$here python3 - "$GAPTRAIN_CONTROLLER" "$1" <<'EOF'
import sys

from send_line import ask

host, port = sys.argv[1].rsplit(":", 1)
ok = refused = 0
for credential in open(sys.argv[2]).read().split():
    reply = ask(host, int(port), credential, 30)
    ok += b'"ok":true' in reply
    refused += b"too many status requests from uid 65534" in reply
print(ok, refused)
EOF
}

# 7. Trust. Another user's job named after an elastic job
# ("gaptrain:<id>", the satellites' name) is neither merged into it nor cancelled when it ends,
# nor is a job of the same user in another partition; with PrivateData=jobs a user's `gaptrain
# status` shows their own jobs only, and a user who floods it is refused (not root); a job of
# the regular partition that registers (--elastic) is refused with the reason.
case_trust() {
  require_gaptrain
  local flag=$GAPTRAIN_CLUSTER_DIR/test-trust-flag rflag=$GAPTRAIN_CLUSTER_DIR/test-trust-rflag
  local owner spoof twin regular t log credentials answers ok refused
  log=$(daemon_log)
  owner=$(flag_job "$flag" -p elastic --elastic=1-1 --exclusive -N1 -w n1 -t 5)
  poll 60 "job $owner RUNNING" job_state_is "$owner" RUNNING
  poll 60 "elastic job $owner registered" managed "$owner"
  spoof=$(nobody_job -J "gaptrain:$owner" -p elastic --exclusive -N1 -w n2 -t 5 --wrap 'sleep 300')
  twin=$(submit -o /dev/null -J "gaptrain:$owner" -p regular --exclusive -N1 -w n3 -t 5 \
    --wrap 'sleep 300')
  poll 60 "nobody's job $spoof named gaptrain:$owner RUNNING" job_state_is "$spoof" RUNNING
  poll 60 "root's job $twin named gaptrain:$owner in partition regular RUNNING" \
    job_state_is "$twin" RUNNING
  t=$(date +%s)
  poll 60 "a poll after both started" last_poll_after "$((t + 1))"
  [ "$(query_status "sorted(job($owner)['nodes'])")" = n1 ] ||
    fail "job $owner took jobs named after it: $(query_status "(job($owner)['nodes'], job($owner)['satellites'])")"

  # PrivateData=jobs (as squeue): nobody sees their own job on n2, not root's on n1. Without it
  # nobody sees job $owner, once gaptraind has read slurmctld's configuration at a full poll
  # (every 10 s: a retry of this case follows the last one's reconfigure).
  poll 30 "nobody to see job $owner without PrivateData" nobody_sees_job "$owner"
  cleanup_steps+=("sed -i '/^PrivateData=/d' '$SLURM_CONF'; scontrol reconfigure")
  echo "PrivateData=jobs" >>"$SLURM_CONF"
  scontrol reconfigure
  poll 60 "nobody's gaptrain status to hide root's job $owner" nobody_sees_no_job "$owner"
  [ "$(query_status_as_nobody "on('n2') == [$spoof]")" = True ] ||
    fail "nobody does not see their own job $spoof on n2: $(query_status_as_nobody "s['nodes']")"
  managed "$owner" || fail "root no longer sees job $owner"
  # A flood of status requests from nobody: refused beyond the burst; root is still served.
  # The polls above may have spent nobody's burst (2 a second, 10 at most): 5 s refill it.
  sleep 5
  credentials=$GAPTRAIN_CLUSTER_DIR/test-trust-credentials
  for _ in $(seq 60); do
    as_nobody munge -S "$GAPTRAIN_MUNGE_SOCKET" -s '{"v":1,"type":"status"}'
  done >"$credentials"
  answers=$(send_each "$credentials")
  note "60 status requests of nobody at once: $answers (ok, refused)"
  read -r ok refused <<<"$answers"
  ((ok >= 1 && refused >= 1)) || fail "60 status requests of nobody: $ok ok, $refused refused"
  managed "$owner" || fail "root's status refused after nobody's flood"
  sed -i '/^PrivateData=/d' "$SLURM_CONF"
  scontrol reconfigure

  # The owner ends: neither job named after it is cancelled (slurmctld still lists the owner).
  touch "$flag"
  poll 60 "job $owner COMPLETED" job_state_is "$owner" COMPLETED
  t=$(date +%s)
  poll 60 "polls after job $owner ended" last_poll_after "$((t + 2))"
  job_running "$spoof" || fail "nobody's job $spoof was ended with job $owner"
  job_running "$twin" || fail "root's regular job $twin was ended with job $owner"
  ! grep -E 'msg="satellites released' "$log" | matches -E "$spoof|$twin" ||
    fail "gaptraind released $spoof or $twin: $(grep -E 'satellites released' "$log" | tail -n 2)"

  # A job of the regular partition with --elastic: its registration is refused, with why.
  regular=$(flag_job "$rflag" -p regular --elastic=1-1 --exclusive -N1 -w n4 -t 5)
  poll 60 "job $regular RUNNING" job_state_is "$regular" RUNNING
  poll 60 "the registration of job $regular refused" grep -qF \
    "REASON=\"job $regular runs in partition regular: only jobs of the elastic partition elastic are managed (submit with -p elastic)\"" "$log"
  ! managed "$regular" || fail "job $regular of partition regular is managed"
  touch "$rflag"
  poll 60 "job $regular COMPLETED" job_state_is "$regular" COMPLETED
  rm -f "$flag" "$rflag" "$credentials"
}

type "case_$case_name" >/dev/null 2>&1 || fail "unknown case $case_name"
"case_$case_name"
echo "PASS: $case_name"
