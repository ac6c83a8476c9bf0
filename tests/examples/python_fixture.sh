#!/usr/bin/env bash
# The fixture of the Python helper's pytest suites (tests/examples/CMakeLists.txt).
#
#   python_fixture.sh check   which python3, torch and pytest the suites run on (skip, 77,
#                             when they cannot run: the suites are then not run either)
#   python_fixture.sh stop    no worker the suites started outlives them: each process whose
#                             command line names a pytest temporary directory (/tmp/pytest-of-*:
#                             the suites' workers, store hosts and checkpoints live there) is
#                             listed and ended by its pid, and the test fails
set -u
py=${GAPTRAIN_TORCH_PYTHON:-/usr/bin/python3}  # as run_pytest.sh
case ${1:-} in
  check)
    # shellcheck disable=SC2016 # the $ is Python's f-string, not the shell's
    exec "$py" -c '
import sys
try:
    import pytest, torch, torch.distributed as dist
except ImportError as error:
    print(f"SKIP: {sys.executable} cannot import {error.name} (apt install python3-torch python3-pytest)")
    sys.exit(77)
if not (dist.is_available() and dist.is_gloo_available()):
    print(f"SKIP: torch {torch.__version__} has no gloo backend")
    sys.exit(77)
print(f"python {sys.version.split()[0]}, torch {torch.__version__}, pytest {pytest.__version__}")'
    ;;
  stop)
    left=()
    for dir in /proc/[0-9]*; do
      pid=${dir#/proc/}
      [ "$pid" = $$ ] && continue
      cmdline=$( { tr '\0' ' ' <"$dir/cmdline"; } 2>/dev/null) || continue  # gone meanwhile
      case $cmdline in
        */pytest-of-*) left+=("$pid") && echo "left running: pid $pid: $cmdline" ;;
      esac
    done
    [ ${#left[@]} -eq 0 ] && { echo "no worker of the suites left running"; exit 0; }
    kill -TERM "${left[@]}" 2>/dev/null
    sleep 2
    kill -KILL "${left[@]}" 2>/dev/null
    echo "FAIL: ${#left[@]} process(es) of the pytest suites outlived them (ended now)"
    exit 1
    ;;
  *) echo "usage: python_fixture.sh check|stop" >&2; exit 2 ;;
esac
