/* The SPANK entry points of spank_gaptrain.so: each switches on the context it runs in and
 * hands over to that context's file. This file stays C so that Slurm's SPANK_PLUGIN macro keeps
 * its plain C meaning (its constants need external linkage); everything else is C++ behind
 * gaptrain_spank.h. The library is built with hidden visibility and a version script
 * (exports.map); the symbols Slurm looks up are made visible here explicitly.
 *
 *   S_CTX_ALLOCATOR, S_CTX_LOCAL  sbatch/salloc, srun: the options (submit_side.cpp)
 *   S_CTX_REMOTE                  slurmstepd: the batch step registers the job (step_side.cpp)
 *   S_CTX_SLURMD                  slurmd: checks the plugstack.conf arguments (node_events.cpp)
 *   S_CTX_JOB_SCRIPT              job prolog/epilog: node events (node_events.cpp)
 */
#include "gaptrain_spank.h"

#pragma GCC visibility push(default)

SPANK_PLUGIN(gaptrain, 1)

int slurm_spank_init(spank_t sp, int ac, char** av) {
  switch (spank_context()) {
    case S_CTX_ALLOCATOR:
    case S_CTX_LOCAL: return gaptrain_submit_init(sp, ac, av);
    case S_CTX_REMOTE: return gaptrain_step_init(sp, ac, av);
    case S_CTX_SLURMD: return gaptrain_slurmd_init(ac, av);
    default: return 0;
  }
}

int slurm_spank_init_post_opt(spank_t sp, int ac, char** av) {
  (void)ac;
  (void)av;
  switch (spank_context()) {
    case S_CTX_ALLOCATOR:
    case S_CTX_LOCAL: return gaptrain_submit_post_opt(sp);
    default: return 0;
  }
}

int slurm_spank_user_init(spank_t sp, int ac, char** av) {
  (void)ac;
  (void)av;
  return spank_context() == S_CTX_REMOTE ? gaptrain_step_user_init(sp) : 0;
}

/* Slurm calls these in S_CTX_JOB_SCRIPT without calling slurm_spank_init first (plugstack.c,
 * spank_job_script), so they are given the plugstack.conf arguments themselves. */
int slurm_spank_job_prolog(spank_t sp, int ac, char** av) {
  return gaptrain_node_prolog(sp, ac, av);
}

int slurm_spank_job_epilog(spank_t sp, int ac, char** av) {
  return gaptrain_node_epilog(sp, ac, av);
}

#pragma GCC visibility pop
