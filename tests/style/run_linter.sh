#!/usr/bin/env bash
# The style tests' linters over the files git tracks (a developer's untracked scratch files
# and the build trees are not the project's): shellcheck over every shell script (*.sh, and
# any file whose first line runs sh, bash or dash), flake8 over every *.py and every file whose
# first line runs python3. Their settings are the root's .shellcheckrc and .flake8 (which also
# names the Python files left out, and why).
#
#   run_linter.sh shellcheck|flake8 SOURCE_DIR
#
# Exits 77 (ctest reports the test as Skipped) when the linter is not installed
# (scripts/install-deps installs both) or SOURCE_DIR is not a git checkout, so that a skip is
# never taken for a pass.
set -euo pipefail

linter=${1:?usage: run_linter.sh shellcheck|flake8 SOURCE_DIR}
source_dir=${2:?usage: run_linter.sh shellcheck|flake8 SOURCE_DIR}
case "$linter" in
  shellcheck | flake8) ;;
  *) echo "run_linter.sh: unknown linter $linter (shellcheck or flake8)" >&2; exit 2 ;;
esac
skip() { echo "SKIP: $*" >&2; exit 77; }

command -v "$linter" >/dev/null || skip "$linter is not installed (scripts/install-deps installs it)"
command -v git >/dev/null || skip "git is not installed: the tracked files cannot be listed"
cd "$source_dir"
# (git also refuses a checkout owned by another user: its message says so, and how to allow it.)
git_says=$(git rev-parse --is-inside-work-tree 2>&1) ||
  skip "git cannot list the tracked files of $source_dir: $git_says"

files=()
while IFS= read -r -d '' file; do
  [ -f "$file" ] || continue # tracked, but deleted in the working tree
  first_line=
  IFS= read -r first_line <"$file" || true
  if [ "$linter" = flake8 ]; then
    [[ $file == *.py || $first_line =~ ^\#!.*[/[:space:]]python3?([[:space:]]|$) ]] && files+=("$file")
    continue
  fi
  if [[ $file == *.sh || $first_line =~ ^\#!.*[/[:space:]](ba|da)?sh([[:space:]]|$) ]]; then
    files+=("$file")
  fi
done < <(git ls-files -z)
[ ${#files[@]} -gt 0 ] || { echo "run_linter.sh: git lists no file for $linter in $source_dir" >&2; exit 1; }

echo "$linter: ${#files[@]} files" >&2
# Both exit non-zero on any finding and print each as FILE:LINE:COLUMN.
if [ "$linter" = shellcheck ]; then
  exec shellcheck --format=gcc "${files[@]}"
fi
exec flake8 "${files[@]}"
