#!/usr/bin/env bash
# `systemd-analyze verify` on packaging/gaptraind.service, as installed in a throwaway root:
# the unit as etc/systemd/system/gaptraind.service, the built gaptraind (and every other program
# an Exec*= line names) where the unit runs it, and stub units for what it depends on (munge,
# slurmctld and the targets of a service's default dependencies), so that verify reports only
# on gaptraind.service. Any line verify prints fails the test: verify exits 0 on an unknown or
# misspelt key, which it only warns about.
# Usage: verify_unit.sh GAPTRAIND [UNIT]   (UNIT defaults to packaging/gaptraind.service)
set -euo pipefail

analyze=$(command -v systemd-analyze || true)
if [ -z "$analyze" ]; then
  echo "FAIL: no systemd-analyze: install Debian's systemd package (scripts/install-deps)" >&2
  exit 1
fi

gaptraind=${1:?usage: verify_unit.sh GAPTRAIND [UNIT]}
unit=${2:-$(cd "$(dirname "$0")/../.." && pwd)/packaging/gaptraind.service}
name=gaptraind.service
[ -x "$gaptraind" ] || { echo "FAIL: $gaptraind is not an executable" >&2; exit 1; }
[ -f "$unit" ] || { echo "FAIL: no unit file $unit" >&2; exit 1; }

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
units=$root/etc/systemd/system
mkdir -p "$units"
install -m 0644 "$unit" "$units/$name"

# The programs of ExecStart=, ExecStartPre=, ExecReload=...: gaptraind's path gets the built
# binary, any other (/bin/kill) this machine's copy; one this Debian lacks is an error in the
# unit (a misspelt path). Prefixes such as "-" or "+" are not part of the path.
found_gaptraind=no
while read -r program; do
  case $program in
    */gaptraind) install -D -m 0755 "$gaptraind" "$root$program"; found_gaptraind=yes ;;
    *)
      if [ ! -x "$program" ]; then
        echo "FAIL: $unit runs $program, which this machine does not have" >&2
        exit 1
      fi
      install -D -m 0755 "$program" "$root$program" ;;
  esac
done < <(sed -nE 's/^Exec[A-Za-z]+=[-@:+!]*([^[:space:]]+).*/\1/p' "$unit" | sort -u)
if [ "$found_gaptraind" != yes ]; then
  echo "FAIL: no Exec*= line of $unit runs a gaptraind" >&2
  exit 1
fi

# Stubs: verify loads the units gaptraind.service depends on, its own and those of a service's
# default dependencies, and fails on one it cannot find ("Unit sysinit.target not found").
# Their content is not gaptrain's to check.
for stub in munge.service slurmctld.service; do
  printf '[Unit]\nDescription=stub %s\n\n[Service]\nExecStart=/bin/true\n' "$stub" >"$units/$stub"
done
for stub in sysinit.target basic.target shutdown.target network-online.target; do
  printf '[Unit]\nDescription=stub %s\n' "$stub" >"$units/$stub"
done

# --man=no: a Documentation=man: line would be looked up in this machine's man pages, not the
# root's. Run from the root so that no relative path reaches this checkout.
set +e
output=$(cd "$root" && "$analyze" verify --root="$root" --man=no "$name" 2>&1)
status=$?
set -e
if [ "$status" -ne 0 ] || [ -n "$output" ]; then
  echo "FAIL: systemd-analyze verify --root=ROOT --man=no $name on $unit (exit $status):" >&2
  printf '%s\n' "$output" >&2
  exit 1
fi
echo "ok: systemd-analyze verify accepts $name ($("$analyze" --version | head -n1))"

# Its hardening must not regress: exposure 1.9 when this test was written, 2.2 since the unit
# keeps CAP_SETUID and CAP_SETGID for satellites asked for as the job's owner (docs/systemd.md).
# --threshold fails when the score is above it (scores count in tenths: 22 = 2.2).
set +e
security=$("$analyze" security --offline=yes --threshold=22 "$unit" 2>&1)
status=$?
set -e
if [ "$status" -ne 0 ]; then
  echo "FAIL: systemd-analyze security: exposure above 2.2 for $unit:" >&2
  printf '%s\n' "$security" | tail -n 3 >&2
  exit 1
fi
echo "ok: $(printf '%s\n' "$security" | grep -i 'overall exposure' | head -n1)"
