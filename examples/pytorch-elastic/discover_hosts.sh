#!/bin/sh
# Horovod-style host discovery for gaptrain jobs (horovodrun --host-discovery-script).
# Prints one "host:slots" line per node of the job, read from the host file gaptrain-launch
# keeps up to date in $GAPTRAIN_HOSTFILE (one node a line, the batch host first; rewritten
# atomically on every resize, so a read never sees half a list). Horovod calls this script
# periodically and grows or shrinks the job when the list changes.
# Slots per host: $GAPTRAIN_SLOTS_PER_HOST (default 1, i.e. one worker per node); a line
# that already reads "host:slots" is kept as it is. Blank lines and # comments are skipped.
set -eu
: "${GAPTRAIN_HOSTFILE:?GAPTRAIN_HOSTFILE is not set (gaptrain-launch sets it)}"
slots=${GAPTRAIN_SLOTS_PER_HOST:-1}
# The final `|| [ -n "$host" ]` keeps a last line that has no newline.
while IFS= read -r host || [ -n "$host" ]; do
  host=$(printf '%s' "$host" | tr -d ' \t\r')
  case $host in
    '' | '#'*) ;;
    *:*) printf '%s\n' "$host" ;;
    *) printf '%s:%s\n' "$host" "$slots" ;;
  esac
done <"$GAPTRAIN_HOSTFILE"
