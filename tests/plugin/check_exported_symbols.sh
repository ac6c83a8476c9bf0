#!/bin/sh
# The plugin must export exactly what Slurm's loader looks up (docs/design.md, "SPANK"): anything
# more can clash with symbols of slurmd, slurmstepd or sbatch; anything less and Slurm rejects it.
set -eu
plugin=$1
expected='plugin_name
plugin_type
plugin_version
slurm_spank_init
slurm_spank_init_post_opt
slurm_spank_job_epilog
slurm_spank_job_prolog
slurm_spank_user_init
spank_plugin_version'
actual=$(nm -D --defined-only "$plugin" | awk '{print $3}' | sort)
if [ "$actual" != "$expected" ]; then
  echo "exported symbols of $plugin differ from the allowed list"
  echo "--- expected"; echo "$expected"
  echo "--- actual"; echo "$actual"
  exit 1
fi
echo "ok: $plugin exports exactly the SPANK symbols"
