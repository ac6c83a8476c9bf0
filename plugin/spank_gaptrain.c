/* The SPANK entry points of spank_gaptrain.so. This file only registers the options and hands
 * each callback to C++ (spank_bridge.cpp); it stays C so that Slurm's SPANK_PLUGIN macro and the
 * option table keep their plain C meaning. The library is built with hidden visibility and a
 * version script (exports.map); the symbols Slurm looks up are made visible here explicitly. */
#include <stddef.h>

#include "gaptrain_spank.h"

#pragma GCC visibility push(default)

SPANK_PLUGIN(gaptrain, 1)

/* Registered from slurm_spank_init in every context: sbatch and salloc only see options
 * registered with spank_option_register, and the remote side must know the same names to
 * receive their values. Index order matches gaptrain_spank_user_init's expectations. */
static struct spank_option gaptrain_options[] = {
    {"elastic", "[MIN-MAX]",
     "Run as an elastic job that gaptrain grows into idle nodes and shrinks back; MIN-MAX is "
     "the node range it can run on (repeat Slurm's -N MIN-MAX)",
     2, GAPTRAIN_OPT_ELASTIC, gaptrain_option_cb},
    {"elastic-curve", "FILE",
     "CSV of measured throughput, lines \"nodes,samples_per_s\" (needs --elastic)", 1,
     GAPTRAIN_OPT_CURVE, gaptrain_option_cb},
    {"elastic-cost", "UP:DOWN",
     "Seconds the job loses when it grows (UP) and shrinks (DOWN) (needs --elastic)", 1,
     GAPTRAIN_OPT_COST, gaptrain_option_cb},
    SPANK_OPTIONS_TABLE_END};

int slurm_spank_init(spank_t sp, int ac, char** av) {
  for (struct spank_option* opt = gaptrain_options; opt->name != NULL; ++opt) {
    if (spank_option_register(sp, opt) != ESPANK_SUCCESS) {
      slurm_error("gaptrain: cannot register option --%s", opt->name);
    }
  }
  return gaptrain_spank_init(sp, ac, av);
}

int slurm_spank_init_post_opt(spank_t sp, int ac, char** av) {
  return gaptrain_spank_init_post_opt(sp, ac, av);
}

int slurm_spank_job_prolog(spank_t sp, int ac, char** av) {
  return gaptrain_spank_job_prolog(sp, ac, av, &gaptrain_options[0]);
}

int slurm_spank_job_epilog(spank_t sp, int ac, char** av) {
  return gaptrain_spank_job_epilog(sp, ac, av);
}

int slurm_spank_user_init(spank_t sp, int ac, char** av) {
  return gaptrain_spank_user_init(sp, ac, av, gaptrain_options);
}

#pragma GCC visibility pop
