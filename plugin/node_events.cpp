// The node side: slurmd (S_CTX_SLURMD) checks the plugstack.conf arguments as it starts, and
// the job prolog/epilog (S_CTX_JOB_SCRIPT) tell gaptraind that a job took or freed this node.
#include <cstdint>
#include <cstdlib>

#include "gaptrain_spank.h"
#include "process_state.hpp"
#include "user_options.hpp"

namespace gaptrain::plugin {
namespace {

// The id and node of a prolog/epilog, or nothing (already logged) when Slurm did not say.
bool job_and_node(spank_t sp, std::uint32_t& job_id, const char*& node) {
  job_id = 0;
  node = std::getenv("SLURMD_NODENAME");
  if (spank_get_item(sp, S_JOB_ID, &job_id) != ESPANK_SUCCESS || job_id == 0 || node == nullptr ||
      *node == '\0') {
    slurm_info("gaptrain: no job id or SLURMD_NODENAME in prolog/epilog; node event skipped");
    return false;
  }
  return true;
}

int node_taken(spank_t sp) {
  std::uint32_t job_id = 0;
  const char* node = nullptr;
  if (!plugin_config().controller || !job_and_node(sp, job_id, node)) return 0;
  char* arg = nullptr;
  const bool elastic = spank_option_getopt(sp, elastic_option(), &arg) == ESPANK_SUCCESS;
  deliver(protocol::NodeTaken{job_id, node, elastic}, job_id, node);
  return 0;
}

int node_freed(spank_t sp) {
  std::uint32_t job_id = 0;
  const char* node = nullptr;
  if (!plugin_config().controller || !job_and_node(sp, job_id, node)) return 0;
  deliver(protocol::NodeFreed{job_id, node}, job_id, node);
  return 0;
}

}  // namespace
}  // namespace gaptrain::plugin

namespace plugin = gaptrain::plugin;

extern "C" int gaptrain_slurmd_init(int ac, char** av) {
  // The refusal is the line in slurmd's log. With "required" slurmd does not start; with
  // "optional" it runs without the plugin (its prologs refuse again, below).
  return plugin::load_plugin_args(ac, av, true);
}

// Each prolog/epilog is a fresh process that Slurm never passed through slurm_spank_init, so
// each reads the arguments itself; bad ones refuse (the prolog reports them, the epilog of the
// same job stays quiet). Past that, the events fail open: the job runs whatever happens.
extern "C" int gaptrain_node_prolog(spank_t sp, int ac, char** av) {
  if (plugin::load_plugin_args(ac, av, true) != 0) return -1;
  return plugin::guarded("prolog notification failed; the job runs normally", 0,
                         [sp] { return plugin::node_taken(sp); });
}

extern "C" int gaptrain_node_epilog(spank_t sp, int ac, char** av) {
  if (plugin::load_plugin_args(ac, av, false) != 0) return -1;
  return plugin::guarded("epilog notification failed", 0, [sp] { return plugin::node_freed(sp); });
}
