/* The boundary between the C entry points (dispatch.c) and their C++ implementations, one
 * group per SPANK context. Every function here catches all exceptions: none may cross into
 * Slurm. A non-zero return refuses: the plugin (init, when the plugstack.conf arguments are
 * bad) or the submission (submit side, bad option values). */
#ifndef GAPTRAIN_SPANK_H
#define GAPTRAIN_SPANK_H

#include <slurm/spank.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Submit side, sbatch/salloc (S_CTX_ALLOCATOR) and srun (S_CTX_LOCAL): submit_side.cpp. */
int gaptrain_submit_init(spank_t sp, int ac, char** av);
int gaptrain_submit_post_opt(spank_t sp);

/* Step side, slurmstepd (S_CTX_REMOTE): step_side.cpp. */
int gaptrain_step_init(spank_t sp, int ac, char** av);
int gaptrain_step_user_init(spank_t sp);

/* Node side, slurmd (S_CTX_SLURMD) and the job prolog/epilog (S_CTX_JOB_SCRIPT):
 * node_events.cpp. */
int gaptrain_slurmd_init(int ac, char** av);
int gaptrain_node_prolog(spank_t sp, int ac, char** av);
int gaptrain_node_epilog(spank_t sp, int ac, char** av);

#ifdef __cplusplus
}
#endif

#endif
