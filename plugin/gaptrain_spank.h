/* The boundary between the C entry points (spank_gaptrain.c) and their C++ implementations
 * (spank_bridge.cpp). Every function here catches all exceptions: none may cross into Slurm. */
#ifndef GAPTRAIN_SPANK_H
#define GAPTRAIN_SPANK_H

#include <slurm/spank.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Option values, passed back to gaptrain_option_cb to tell the options apart. */
enum { GAPTRAIN_OPT_ELASTIC = 1, GAPTRAIN_OPT_CURVE = 2, GAPTRAIN_OPT_COST = 3 };

/* The callback of every gaptrain option; non-zero refuses the submission (local context). */
int gaptrain_option_cb(int val, const char* value, int remote);

int gaptrain_spank_init(spank_t sp, int ac, char** av);
int gaptrain_spank_init_post_opt(spank_t sp, int ac, char** av);
int gaptrain_spank_job_prolog(spank_t sp, int ac, char** av, struct spank_option* elastic_option);
int gaptrain_spank_job_epilog(spank_t sp, int ac, char** av);
int gaptrain_spank_user_init(spank_t sp, int ac, char** av, struct spank_option* options);

#ifdef __cplusplus
}
#endif

#endif
