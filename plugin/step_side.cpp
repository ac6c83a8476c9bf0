// The step side: slurmstepd (S_CTX_REMOTE). The batch step of an --elastic job registers the
// job with gaptraind, and leaves the registration in the job's environment for gaptrain-launch.
#include <pwd.h>
#include <unistd.h>

#include <array>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "gaptrain_spank.h"
#include "process_state.hpp"
#include "user_options.hpp"

namespace gaptrain::plugin {
namespace {

// Slurm's step id of a batch script (slurm.h's SLURM_BATCH_SCRIPT; slurm.h itself is not
// included because spank.h is the plugin's whole API).
constexpr std::uint32_t kBatchScriptStep = 0xfffffffbU;

// The curve submit_side.cpp passed as job-control variable GAPTRAIN_CURVE.
constexpr const char* kCurveInJob = "SLURM_SPANK_GAPTRAIN_CURVE";
// The job's registration, for gaptrain-launch (launcher/registration_retry.hpp).
constexpr const char* kRegistrationVariable = "GAPTRAIN_REGISTRATION";

// A job-environment variable ("" when absent or unreadable).
std::string job_getenv(spank_t sp, const char* name) {
  std::vector<char> buffer(std::size_t{64} << 10U);
  if (spank_getenv(sp, name, buffer.data(), static_cast<int>(buffer.size())) != ESPANK_SUCCESS) {
    return {};
  }
  return std::string(buffer.data());
}

std::string user_name(uid_t uid) {
  std::array<char, 4096> buffer{};
  passwd entry{};
  passwd* found = nullptr;
  if (getpwuid_r(uid, &entry, buffer.data(), buffer.size(), &found) == 0 && found != nullptr) {
    return found->pw_name;
  }
  return std::to_string(uid);
}

// Slurm shows no SPANK context the -N MIN-MAX range (sbatch hands plugins only uid/gid, and a
// running job's record keeps no max), so the range comes from --elastic=MIN-MAX; without it
// the job keeps the size it started with.
NodeSizes registered_range(spank_t sp, const char* elastic_arg) {
  if (elastic_arg != nullptr && *elastic_arg != '\0') return parse_node_range(elastic_arg);
  const int now = std::atoi(job_getenv(sp, "SLURM_JOB_NUM_NODES").c_str());
  return NodeSizes{now > 0 ? now : 1, now > 0 ? now : 1, {}};
}

// --elastic-batch and --elastic-noise-scale into the registration. Checked at submission; a
// value that fails now only costs the job its goodput (the allocator values it by throughput).
void read_batch_options(spank_t sp, protocol::JobRegistration& r) {
  char* batch_arg = nullptr;
  if (spank_option_getopt(sp, elastic_batch_option(), &batch_arg) != ESPANK_SUCCESS ||
      batch_arg == nullptr) {
    return;
  }
  try {
    r.batch = parse_batch_range(batch_arg);
  } catch (const OptionError& e) {
    slurm_info("gaptrain: job %u: %s; it is valued by its throughput", r.job_id, e.what());
    return;
  }
  char* phi_arg = nullptr;
  if (spank_option_getopt(sp, elastic_noise_scale_option(), &phi_arg) == ESPANK_SUCCESS &&
      phi_arg != nullptr) {
    try {
      r.noise_scale = parse_noise_scale(phi_arg);
    } catch (const OptionError& e) {
      slurm_info("gaptrain: job %u: %s; it will be learned online", r.job_id, e.what());
    }
  }
}

int register_job(spank_t sp) {
  if (!plugin_config().controller) return 0;
  std::uint32_t step = 0;
  if (spank_get_item(sp, S_JOB_STEPID, &step) != ESPANK_SUCCESS || step != kBatchScriptStep) {
    return 0;  // only the batch step registers, once per job
  }
  char* elastic_arg = nullptr;
  if (spank_option_getopt(sp, elastic_option(), &elastic_arg) != ESPANK_SUCCESS) return 0;

  protocol::JobRegistration r;
  uid_t uid = 0;
  const char* node = std::getenv("SLURMD_NODENAME");  // slurmstepd sets it for itself
  if (spank_get_item(sp, S_JOB_ID, &r.job_id) != ESPANK_SUCCESS ||
      spank_get_item(sp, S_JOB_UID, &uid) != ESPANK_SUCCESS || node == nullptr) {
    slurm_info("gaptrain: batch step without job id, uid or SLURMD_NODENAME; not registered");
    return 0;
  }
  r.user = user_name(uid);
  r.batch_host = node;
  try {
    const NodeSizes range = registered_range(sp, elastic_arg);
    r.min_nodes = range.min;
    r.max_nodes = range.max;
    r.allowed_sizes = range.allowed;
  } catch (const OptionError& e) {
    slurm_info("gaptrain: job %u: %s; not registered", r.job_id, e.what());
    return 0;
  }
  if (const std::string compact = job_getenv(sp, kCurveInJob); !compact.empty()) {
    try {
      for (const auto& [type, points] : curves_from_compact(compact)) {
        if (points.empty()) continue;
        if (type.empty()) {
          r.curve = ScalingCurve(points);
        } else {
          r.curves[type] = ScalingCurve(points);  // runs only on the types named
        }
      }
    } catch (const OptionError& e) {
      slurm_info("gaptrain: job %u: %s; the curve will be learned online", r.job_id, e.what());
    }
  }
  char* cost_arg = nullptr;
  if (spank_option_getopt(sp, elastic_cost_option(), &cost_arg) == ESPANK_SUCCESS &&
      cost_arg != nullptr) {
    try {
      const Costs costs = parse_costs(cost_arg);
      r.up_cost_s = costs.up_s;
      r.down_cost_s = costs.down_s;
    } catch (const OptionError& e) {
      slurm_info("gaptrain: job %u: %s; costs will be learned online", r.job_id, e.what());
    }
  }
  char* notice_arg = nullptr;
  if (spank_option_getopt(sp, elastic_notice_option(), &notice_arg) == ESPANK_SUCCESS &&
      notice_arg != nullptr) {
    try {
      r.notice_s = parse_notice(notice_arg);
    } catch (const OptionError& e) {
      slurm_info("gaptrain: job %u: %s; gaptraind's default notice applies", r.job_id, e.what());
    }
  }
  read_batch_options(sp, r);
  // A flag: getopt succeeds when the job was submitted with it (its value is empty).
  char* mix_arg = nullptr;
  r.mix_types = spank_option_getopt(sp, elastic_mix_types_option(), &mix_arg) == ESPANK_SUCCESS &&
                r.curves.empty();
  // gaptrain-launch (the batch script) sends it again when gaptraind does not know the job:
  // down as the job starts, or restarted without its state (launcher/registration_retry).
  const std::string registration = protocol::encode(r);
  if (spank_setenv(sp, kRegistrationVariable, registration.c_str(), 1) != ESPANK_SUCCESS) {
    slurm_info("gaptrain: job %u: cannot pass the registration to the job's launcher", r.job_id);
  }
  deliver(r, r.job_id, node);
  return 0;
}

// Set once slurm_spank_init accepted the plugstack.conf arguments in this slurmstepd.
bool loaded = false;

}  // namespace
}  // namespace gaptrain::plugin

namespace plugin = gaptrain::plugin;

extern "C" int gaptrain_step_init(spank_t sp, int ac, char** av) {
  // The refusal goes to slurmstepd's log; with "optional" Slurm still calls user_init, which
  // then does nothing.
  plugin::loaded = plugin::load_plugin_args(ac, av, true) == 0;
  if (!plugin::loaded) return -1;
  plugin::register_user_options(sp);
  return 0;
}

extern "C" int gaptrain_step_user_init(spank_t sp) {
  // Fails open: whatever goes wrong, the job runs without gaptrain (register_job returns 0).
  return plugin::guarded("registration failed; the job runs without gaptrain", 0,
                         [sp] { return plugin::loaded ? plugin::register_job(sp) : 0; });
}
