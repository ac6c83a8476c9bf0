# Sourced by scripts/local-cluster: the bookkeeping of the processes it starts (pid files with
# each process's start time, so that a recycled pid is never taken for ours; spawn, stop and the
# sweep of whatever a crashed run left). Uses local-cluster's globals (DIR, PROG) and log/die.
# shellcheck shell=bash
# A pid file holds "PID STARTTIME" (field 22 of /proc/PID/stat), so a pid that the kernel
# reused for another process is never mistaken for ours.

proc_starttime() {
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  # The command name (field 2) may hold spaces; the fields after ") " are fixed.
  stat=${stat##*) }
  # shellcheck disable=SC2086 # split on purpose
  set -- $stat
  echo "${20}"
}

# True while the process recorded in pid file $1 runs (a zombie counts as gone).
pidfile_alive() {
  local pid start state
  [ -f "$1" ] || return 1
  read -r pid start <"$1" || return 1
  [ -n "$pid" ] && [ -d "/proc/$pid" ] || return 1
  [ "$(proc_starttime "$pid")" = "$start" ] || return 1
  state=$(sed -n 's/^State:[[:space:]]*\([A-Z]\).*/\1/p' "/proc/$pid/status" 2>/dev/null)
  [ "$state" != Z ]
}

record_pid() {  # record_pid NAME PID
  local start
  start=$(proc_starttime "$2") || die "$1 (pid $2) exited at once; see $(logfile_of "$1")"
  echo "$2 $start" >"$RUN/$1.pid"
}

logfile_of() {
  case $1 in
    munged) echo "$DIR/munge/munged.log" ;;
    mariadbd) echo "$DIR/mariadb/mariadb.log" ;;
    *) echo "$DIR/log/$1.log" ;;
  esac
}

# Starts a daemon in the foreground of its own session, detached from our stdio (ctest waits
# for its pipes to close), and records its pid. Every daemon gets the marker and SLURM_CONF.
# Daemons with a log file of their own also echo it on stderr in the foreground: their stdio
# goes to log/NAME.stderr, which still catches what they print before opening the log.
spawn() {  # spawn NAME COMMAND...
  local name=$1; shift
  local out=$DIR/log/$name.stderr
  [ "$name" = gaptraind ] && out=$DIR/log/gaptraind.log
  # The subshell, env and `setsid` all exec in place (the subshell is not a process group
  # leader), so $! is the daemon itself. Its cwd is DIR, not wherever start was run: slurmd
  # passes its cwd on to prologs and epilogs.
  (cd "$DIR" && exec env "$MARKER_VAR=$(marker_value)" SLURM_CONF="$SLURM_CONF_FILE" setsid "$@" \
    </dev/null >>"$out" 2>&1) &
  record_pid "$name" "$!"
}

# Stops the process of one pid file: SIGTERM, wait, SIGKILL after the grace period.
stop_pidfile() {
  local f=$1 name pid start i
  name=$(basename "$f" .pid)
  if pidfile_alive "$f"; then
    read -r pid start <"$f"
    log "stopping $name (pid $pid)"
    kill -TERM "$pid" 2>/dev/null || true
    for ((i = 0; i < GRACE * 10; i++)); do
      pidfile_alive "$f" || break
      sleep 0.1
    done
    if pidfile_alive "$f"; then
      log "$name (pid $pid) ignored SIGTERM for ${GRACE}s: SIGKILL"
      kill -KILL "$pid" 2>/dev/null || true
      for ((i = 0; i < 50; i++)); do pidfile_alive "$f" || break; sleep 0.1; done
    fi
    pidfile_alive "$f" && { log "$name (pid $pid) survived SIGKILL"; return 1; }
  fi
  rm -f "$f"
}

# Kills what is left of our daemons' children (a slurmstepd whose job outlived slurmd) and
# their descendants (the job's processes). The step daemons are recognised by the exact
# marker in their environment, never by name; job processes by descending from them.
sweep_marked() {
  local p pid ppid rest victims=() frontier=() next marker
  declare -A children=()
  marker=$(marker_value)
  for p in /proc/[0-9]*; do
    pid=${p#/proc/}
    [ "$pid" = "$$" ] && continue
    # Parent pid: field 4 of /proc/PID/stat, after the command name in parentheses.
    rest=$(cat "$p/stat" 2>/dev/null) || continue
    rest=${rest##*) }
    ppid=$(echo "$rest" | cut -d' ' -f2)
    children[$ppid]+=" $pid"
    if tr '\0' '\n' 2>/dev/null <"$p/environ" | grep -qxF "$MARKER_VAR=$marker"; then
      frontier+=("$pid")
    fi
  done
  while [ ${#frontier[@]} -gt 0 ]; do
    victims+=("${frontier[@]}")
    next=()
    for pid in "${frontier[@]}"; do
      # shellcheck disable=SC2206 # a space-separated list of pids
      next+=(${children[$pid]:-})
    done
    frontier=("${next[@]}")
  done
  for pid in "${victims[@]}"; do
    log "killing leftover process $pid ($(tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline" | cut -c1-80))"
    kill -KILL "$pid" 2>/dev/null || true
  done
}

# The installed Slurm's major and minor release as one number (22.05 -> 2205), empty if slurmd
# does not say.
slurm_release() { slurmd -V | sed -n 's/^slurm[^ ]* \([0-9]*\)\.\([0-9]*\).*/\1\2/p'; }
