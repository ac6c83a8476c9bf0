#!/usr/bin/env bash
# Latencies of the plugin and gaptraind on a running local cluster (scripts/local-cluster, with
# --plugin and --gaptraind). A measurement, not a test: it prints numbers and asserts nothing.
#
#   tests/bench/slurm_latency.sh ENV_SH [RUNS]
#
# ENV_SH is the cluster's env.sh (DIR/env.sh, or the export lines `local-cluster start`
# printed). RUNS (default 10) is the number of jobs per measurement. GAPTRAIN_CLI is the
# `gaptrain` binary (default: `gaptrain` on PATH, else build*/controller/gaptrain).
#
# (a) Hole latency: a 1-node --exclusive job on n1 runs until the script touches a flag file;
#     its last command writes the time; then `gaptrain status --json` is polled (~20 ms) until
#     n1 is a hole. Reported: from the job script's exit, and from the touch. Once with the
#     configured poll_interval_s, once with 30 s, so that the plugin's node_freed event is
#     what makes the daemon look (DIR/etc/gaptraind.json edited, gaptraind sent SIGHUP).
# (b) Prolog/epilog overhead: slurmd runs every job prolog/epilog as `slurmstepd spank
#     prolog|epilog` whenever plugstack.conf exists, and logs (SlurmdDebug=debug2) when it
#     calls it and when it is done. RUNS jobs each with: the plugin and gaptraind up; the
#     plugin with gaptraind stopped (fail-open path); an empty plugstack.conf (no plugin).
#     The overhead is the difference of the durations; the plugin's own share is the time
#     from "opening plugin stack" to "spank_gaptrain.so: job_prolog = 0" in the same log.
#
# Everything changed (SlurmdDebug, plugstack.conf, poll_interval_s, the stopped controller)
# is put back on exit. It uses node n1 only and cancels its own jobs.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
env_sh=${1:?usage: $0 ENV_SH [RUNS]}
runs=${2:-10}

[ "$(id -u)" -eq 0 ] || { echo "must run as root (like the cluster)" >&2; exit 1; }
# shellcheck disable=SC1090 # the cluster's export lines
source "$env_sh"
DIR=$GAPTRAIN_CLUSTER_DIR
if [ -z "${GAPTRAIN_CLI:-}" ]; then
  GAPTRAIN_CLI=$(command -v gaptrain ||
    find "$repo" -maxdepth 3 -path "$repo/build*/controller/gaptrain" -type f | head -n1)
fi
[ -x "$GAPTRAIN_CLI" ] || { echo "set GAPTRAIN_CLI to the gaptrain binary" >&2; exit 1; }
export GAPTRAIN_CLI
[ -s "$DIR/etc/plugstack.conf" ] || { echo "$DIR runs without the plugin" >&2; exit 1; }

say() { echo "slurm_latency: $*" >&2; }
die() { echo "slurm_latency: error: $*" >&2; exit 1; }

work=$(mktemp -d)
jobs_file=$work/jobs
: >"$jobs_file"
cp "$DIR/etc/gaptraind.json" "$work/gaptraind.json"
cp "$DIR/etc/plugstack.conf" "$work/plugstack.conf"
cp "$DIR/etc/slurm.conf" "$work/slurm.conf"

restore() {
  local changed=0
  [ -s "$jobs_file" ] && xargs scancel <"$jobs_file" 2>/dev/null
  cmp -s "$work/plugstack.conf" "$DIR/etc/plugstack.conf" || cp "$work/plugstack.conf" "$DIR/etc/plugstack.conf"
  if ! cmp -s "$work/slurm.conf" "$DIR/etc/slurm.conf"; then
    cp "$work/slurm.conf" "$DIR/etc/slurm.conf"
    scontrol reconfigure || true
  fi
  "$repo/scripts/local-cluster" start-controller --dir "$DIR" 2>/dev/null || true
  cmp -s "$work/gaptraind.json" "$DIR/etc/gaptraind.json" || changed=1
  if [ $changed = 1 ]; then
    cp "$work/gaptraind.json" "$DIR/etc/gaptraind.json"
    reload_daemon || true
  fi
  rm -rf "$work"
}
trap restore EXIT

poll() {  # poll SECONDS DESCRIPTION CMD...
  local deadline=$((SECONDS + $1)) what=$2; shift 2
  until "$@"; do
    ((SECONDS < deadline)) || die "timed out after $1 s waiting for $what"
    sleep 0.05
  done
}

job_state() { scontrol show job -o "$1" | tr ' ' '\n' | sed -n 's/^JobState=//p'; }
job_running() { [ "$(job_state "$1")" = RUNNING ]; }
job_gone() { case $(job_state "$1") in PENDING|CONFIGURING|RUNNING|COMPLETING) return 1 ;; esac; }
n1_idle() { [ "$(sinfo -h -n n1 -p regular -o %t)" = idle ]; }

submit() {
  local id
  id=$(sbatch --parsable "$@") || die "sbatch $* failed"
  id=${id%%;*}
  echo "$id" >>"$jobs_file"
  echo "$id"
}

is_hole() {  # is_hole NODE
  "$GAPTRAIN_CLI" status --json |
    python3 -c 'import json,sys; sys.exit(sys.argv[1] not in [h["node"] for h in json.load(sys.stdin)["holes"]])' "$1"
}

daemon_pid() { read -r pid _ <"$DIR/run/gaptraind.pid" && echo "$pid"; }

reloads() { grep -c 'msg="configuration reloaded"' "$DIR/log/gaptraind.log" || true; }
reloads_above() { [ "$(reloads)" -gt "$1" ]; }

# SIGHUP gaptraind and wait until it logged the reload.
reload_daemon() {
  local before
  before=$(reloads)
  kill -HUP "$(daemon_pid)"
  poll 30 "gaptraind to reload" reloads_above "$before"
}

set_poll_interval() {  # set_poll_interval SECONDS
  python3 - "$DIR/etc/gaptraind.json" "$1" <<'EOF'
import json, sys
path, seconds = sys.argv[1], float(sys.argv[2])
config = json.load(open(path))
config["poll_interval_s"] = seconds
json.dump(config, open(path, "w"))
EOF
  reload_daemon
}

# Prints p50, mean and max of the numbers (one a line) in FILE, in milliseconds.
summary() {  # summary FILE
  python3 - "$1" <<'EOF'
import statistics, sys
values = [float(v) for v in open(sys.argv[1]) if v.strip()]
print(f"n={len(values)} p50={statistics.median(values):.0f} ms mean={statistics.mean(values):.0f} ms "
      f"max={max(values):.0f} ms")
EOF
}

# (a) One hole latency sample: prints "FROM_EXIT_MS FROM_TOUCH_MS".
hole_latency_once() {
  local flag=$work/flag end=$work/end job
  rm -f "$flag" "$end"
  poll 60 "n1 idle" n1_idle
  job=$(submit -o /dev/null --exclusive -N1 -w n1 -t 2 \
    --wrap "while [ ! -e $flag ]; do sleep 0.005; done; date +%s.%N >$end")
  poll 60 "job $job running" job_running "$job"
  poll 60 "n1 to stop being a hole" eval '! is_hole n1'
  # One Python process polls status as fast as the CLI answers and takes the time itself.
  python3 - "$flag" "$end" <<'EOF'
import json, os, pathlib, subprocess, sys, time
flag, end = sys.argv[1], sys.argv[2]
touched = time.time()
pathlib.Path(flag).touch()
deadline = touched + 120
while time.time() < deadline:
    out = subprocess.run([os.environ["GAPTRAIN_CLI"], "status", "--json"], capture_output=True)
    now = time.time()
    if out.returncode == 0 and "n1" in [h["node"] for h in json.loads(out.stdout)["holes"]]:
        exited = float(open(end).read())
        print(f"{(now - exited) * 1000:.1f} {(now - touched) * 1000:.1f}")
        sys.exit(0)
    time.sleep(0.02)
sys.exit("n1 did not become a hole within 120 s")
EOF
  poll 60 "job $job to end" job_gone "$job"
}

hole_latency() {  # hole_latency LABEL
  local i sample
  : >"$work/from_exit"; : >"$work/from_touch"
  for ((i = 1; i <= runs; i++)); do
    sample=$(hole_latency_once)
    echo "${sample% *}" >>"$work/from_exit"
    echo "${sample#* }" >>"$work/from_touch"
  done
  echo "hole latency, $1: from job script exit $(summary "$work/from_exit")"
  echo "hole latency, $1: from touch of the flag $(summary "$work/from_touch")"
}

# (b) RUNS jobs one after the other on n1; then the durations of their prologs and epilogs
# from slurmd's log (debug2), written after line OFFSET.
prolog_epilog_runs() {  # prolog_epilog_runs LABEL
  local log=$DIR/log/slurmd-n1.log offset i job
  offset=$(wc -l <"$log")
  for ((i = 1; i <= runs; i++)); do
    poll 60 "n1 idle" n1_idle
    job=$(submit -o /dev/null --exclusive -N1 -w n1 -t 1 --wrap true)
    poll 60 "job $job to end" job_gone "$job"
  done
  poll 60 "n1 idle" n1_idle
  tail -n +"$((offset + 1))" "$log" | python3 -c '
import re, statistics, sys
from datetime import datetime
label = sys.argv[1]
# Concurrent writers sometimes mangle a line start ("[2026[2026-11-22T..."): take the first whole stamp.
stamp = re.compile(r"\[(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3})\] (.*)$")
calls, total, own = {}, {"prolog": [], "epilog": []}, {"prolog": [], "epilog": []}
opened = None
for line in sys.stdin:
    m = stamp.search(line)
    if not m or m.group(2).startswith("["):   # skip the job steps own lines
        continue
    t = datetime.fromisoformat(m.group(1)).timestamp() * 1000
    text = m.group(2)
    if (c := re.search(r"calling \S+ spank (prolog|epilog)$", text)):
        calls[c.group(1)] = t
    elif "spank: opening plugin stack" in text:
        opened = t
    elif (c := re.search(r"spank_gaptrain.so: job_(prolog|epilog) = ", text)) and opened:
        own[c.group(1)].append(t - opened)
    elif re.search(r"Finished wait for job \d+.s prolog to complete", text) and "prolog" in calls:
        total["prolog"].append(t - calls.pop("prolog"))
    elif re.search(r"completed epilog for jobid", text) and "epilog" in calls:
        total["epilog"].append(t - calls.pop("epilog"))
def fmt(v):
    if not v:
        return "n=0"
    return f"n={len(v)} p50={statistics.median(v):.0f} ms mean={statistics.mean(v):.1f} ms max={max(v):.0f} ms"
for mode in ("prolog", "epilog"):
    print(f"{mode}, {label}: whole spank {mode} {fmt(total[mode])}; plugin load+callback {fmt(own[mode])}")
' "$1"
}

main() {
  local interval
  interval=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["poll_interval_s"])' "$DIR/etc/gaptraind.json")
  say "cluster $DIR, $runs jobs per measurement, gaptraind poll_interval_s=$interval"
  "$GAPTRAIN_CLI" status >/dev/null || die "gaptraind does not answer at $GAPTRAIN_CONTROLLER"

  say "(a) hole latency, poll_interval_s=$interval"
  hole_latency "poll_interval_s=$interval"
  say "(a) hole latency, poll_interval_s=30 (the plugin's node_freed triggers the poll)"
  set_poll_interval 30
  hole_latency "poll_interval_s=30"
  cp "$work/gaptraind.json" "$DIR/etc/gaptraind.json"
  reload_daemon

  say "(b) prolog/epilog durations (SlurmdDebug=debug2)"
  sed -i 's/^SlurmdDebug=.*/SlurmdDebug=debug2/' "$DIR/etc/slurm.conf"
  scontrol reconfigure
  poll 60 "n1 idle after reconfigure" n1_idle
  prolog_epilog_runs "plugin, gaptraind up"
  "$repo/scripts/local-cluster" stop-controller --dir "$DIR"
  prolog_epilog_runs "plugin, gaptraind stopped"
  "$repo/scripts/local-cluster" start-controller --dir "$DIR"
  : >"$DIR/etc/plugstack.conf"
  prolog_epilog_runs "empty plugstack.conf"
  cp "$work/plugstack.conf" "$DIR/etc/plugstack.conf"
}

main
