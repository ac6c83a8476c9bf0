#!/bin/sh
# ctest fixture: a private munged for the munge tests (docs/design.md, "Cluster set-up"). Usage:
#   munged_fixture.sh start INFO_FILE   writes the socket path to INFO_FILE (line 1)
#   munged_fixture.sh stop INFO_FILE    stops that munged by its pid and removes its files
# Without root, the munge user or munged, "start" writes nothing and the tests skip.
set -eu
action=$1
info=$2

if [ "$action" = stop ]; then
  [ -f "$info" ] || exit 0
  dir=$(sed -n 2p "$info")
  sockdir=$(sed -n 3p "$info")
  if [ -f "$dir/munged.pid" ]; then
    pid=$(cat "$dir/munged.pid")
    kill "$pid" 2>/dev/null || true
    i=0
    while kill -0 "$pid" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
  fi
  case "$dir" in /tmp/gaptrain-test-munged.*) rm -rf "$dir" ;; esac
  case "$sockdir" in /tmp/gaptrain-test-munge-sock.*) rm -rf "$sockdir" ;; esac
  rm -f "$info"
  exit 0
fi

rm -f "$info"
if [ "$(id -u)" != 0 ] || ! id munge >/dev/null 2>&1 || ! command -v munged >/dev/null 2>&1 ||
   ! command -v mungekey >/dev/null 2>&1 || ! command -v runuser >/dev/null 2>&1; then
  echo "munged fixture: needs root, user munge, munged, mungekey and runuser; munge tests skip"
  exit 0
fi
# munged insists on a private state directory and a socket directory others can traverse.
dir=$(mktemp -d /tmp/gaptrain-test-munged.XXXXXX)
sockdir=$(mktemp -d /tmp/gaptrain-test-munge-sock.XXXXXX)
chown munge:munge "$dir" "$sockdir"
chmod 700 "$dir"
chmod 755 "$sockdir"
socket=$sockdir/munge.socket
runuser -u munge -- mungekey --create --keyfile="$dir/munge.key"
runuser -u munge -- munged --socket="$socket" --key-file="$dir/munge.key" \
  --pid-file="$dir/munged.pid" --log-file="$dir/munged.log" --seed-file="$dir/munged.seed"
i=0
while [ ! -S "$socket" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
if [ ! -S "$socket" ]; then
  echo "munged fixture: munged did not start; see $dir/munged.log" >&2
  cat "$dir/munged.log" >&2 || true
  exit 1
fi
printf '%s\n%s\n%s\n' "$socket" "$dir" "$sockdir" > "$info"
echo "munged fixture: socket $socket"
