#!/usr/bin/env bash
# The wall clock of slurmctld's host steps while an elastic job trains: a private 8-node cluster
# (scripts/local-cluster) whose daemons (munged, MariaDB, slurmdbd, slurmctld, slurmd, gaptraind)
# run under libfaketime, its offset read from one
# file at every call, monotonic clocks left alone (as an NTP step leaves them). Runs
# tests/slurm/run_elastic_case.sh's clock_jump case on it and stops the cluster, also when the
# case fails. As root, after a build:
#   tests/bench/clock_jump_probe.sh BUILD_DIR
# Needs Debian's faketime (libfaketime).
set -euo pipefail
build=$(cd "${1:?usage: $0 BUILD_DIR}" && pwd)
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
lib=/usr/lib/$(gcc -print-multiarch)/faketime/libfaketimeMT.so.1
[ -e "$lib" ] || { echo "clock_jump_probe: $lib missing: apt-get install faketime" >&2; exit 2; }
dir=$build/clock-jump-cluster
spec=$build/clock-jump.spec
echo "+0" >"$spec"
chmod 0644 "$spec"
export LD_PRELOAD=$lib FAKETIME_TIMESTAMP_FILE=$spec FAKETIME_NO_CACHE=1 FAKETIME_DONT_FAKE_MONOTONIC=1
trap '"$repo/tests/slurm/cluster_fixture.sh" stop "$dir" >/dev/null 2>&1 || true' EXIT
"$repo/tests/slurm/cluster_fixture.sh" start "$dir" --nodes 8 --no-home-mode --plugin "$build/plugin/spank_gaptrain.so" \
  --gaptraind "$build/controller/daemon/gaptraind"
# The case and the jobs it submits run without libfaketime (Python's time.sleep fails under it):
# the clock that jumps is that of the Slurm daemons' and gaptraind's host.
env -u LD_PRELOAD CLOCK_JUMP_SPEC="$spec" GAPTRAIN_CLI="$build/controller/gaptrain" \
  EXAMPLE_DIR="$repo/examples/pytorch-elastic" PYTHON_DIR="$repo/python" "$repo/tests/slurm/run_elastic_case.sh" "$dir/env.sh" \
  "$build/launcher/gaptrain-launch" clock_jump
