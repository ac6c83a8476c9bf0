// The submit side: sbatch and salloc (S_CTX_ALLOCATOR), srun (S_CTX_LOCAL). Registers the
// options, checks what needs more than one option, and passes a validated curve to the job.
#include <cstdlib>
#include <string>

#include "gaptrain_spank.h"
#include "process_state.hpp"
#include "user_options.hpp"

namespace gaptrain::plugin {
namespace {

// The job-control variable that carries a validated curve from sbatch to the job (the batch
// step sees it as SLURM_SPANK_GAPTRAIN_CURVE, step_side.cpp).
constexpr const char* kCurveVariable = "GAPTRAIN_CURVE";

int submit_post_opt(spank_t sp) {
  const SubmittedOptions& options = submitted_options();
  const char* needs_elastic = first_option_needing_elastic(options);
  if (!options.elastic && needs_elastic != nullptr) {
    slurm_error(
        "gaptrain: --%s only applies to elastic jobs: add --elastic (e.g. -N 2-8 "
        "--elastic=2-8)",
        needs_elastic);
    // Slurm ignores a failing init_post_opt of an "optional" plugin (plugstack.c,
    // _do_call_stack), and option callbacks cannot see the other options. This runs in the
    // submitting command before anything was created, so ending it is the refusal.
    std::exit(1);
  }
  if (options.noise_scale && !options.batch) {
    slurm_error(
        "gaptrain: --elastic-noise-scale only applies to a job with a batch range: add "
        "--elastic-batch=M0:MAX (e.g. --elastic-batch=128:4096)");
    std::exit(1);
  }
  if (options.mix_types && options.curve && !options.curve->contains("")) {
    slurm_error(
        "gaptrain: --elastic-mix-types needs one curve for any mix of nodes, not a curve per "
        "node type: give a \"nodes,samples_per_s\" file, or leave out --elastic-mix-types");
    std::exit(1);
  }
  if (options.elastic && options.curve) {
    const std::string compact = curves_to_compact(*options.curve);
    if (spank_job_control_setenv(sp, kCurveVariable, compact.c_str(), 1) != ESPANK_SUCCESS) {
      slurm_info("gaptrain: cannot pass the curve to the job; it will be learned online");
    }
  }
  return 0;
}

}  // namespace
}  // namespace gaptrain::plugin

namespace plugin = gaptrain::plugin;

extern "C" int gaptrain_submit_init(spank_t sp, int ac, char** av) {
  // Bad plugstack.conf arguments: the plugin refuses to load, so its options are unknown and
  // `sbatch --elastic` is refused by sbatch itself rather than run without gaptrain.
  if (plugin::load_plugin_args(ac, av, true) != 0) return -1;
  plugin::register_user_options(sp);
  return 0;
}

extern "C" int gaptrain_submit_post_opt(spank_t sp) {
  return plugin::guarded("option check failed", -1, [sp] { return plugin::submit_post_opt(sp); });
}
