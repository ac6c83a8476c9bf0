// The C++ side of the SPANK entry points. Each function is a catch-all boundary: Slurm is C,
// and an exception escaping into slurmd, slurmstepd or sbatch would abort them. Outside
// sbatch-time validation every path returns success: gaptrain fails open, and a job must run
// exactly as it would without the plugin when the controller is down, slow or misconfigured.
#include <pwd.h>
#include <unistd.h>

#include <array>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <optional>
#include <string>
#include <vector>

#include "gaptrain/protocol.hpp"
#include "gaptrain_spank.h"
#include "notify.hpp"
#include "options.hpp"
#include "plugin_args.hpp"

namespace {

using gaptrain::plugin::Costs;
using gaptrain::plugin::Curve;
using gaptrain::plugin::NodeRange;
using gaptrain::plugin::OptionError;
using gaptrain::plugin::PluginConfig;

// Slurm's step id of a batch script (slurm.h's SLURM_BATCH_SCRIPT; slurm.h itself is not
// included because spank.h is the plugin's whole API).
constexpr std::uint32_t kBatchScriptStep = 0xfffffffbU;

// The job-control variable that carries a validated curve from sbatch to the job. sbatch
// exports it to the batch step as SLURM_SPANK_GAPTRAIN_CURVE, prolog/epilog see SPANK_...
constexpr const char* kCurveVariable = "GAPTRAIN_CURVE";
constexpr const char* kCurveInJob = "SLURM_SPANK_GAPTRAIN_CURVE";
// The job's registration, for gaptrain-launch (plugin/launch/registration_retry.hpp).
constexpr const char* kRegistrationVariable = "GAPTRAIN_REGISTRATION";

// What one plugin instance (one process) learned. SPANK gives callbacks no user pointer, so
// this lives in a function-local static.
struct State {
  PluginConfig config;
  bool elastic = false;
  std::optional<NodeRange> range;
  std::optional<Curve> curve;
  std::optional<Costs> costs;
};

State& state() {
  static State s;
  return s;
}

std::vector<std::string_view> arguments(int ac, char** av) {
  std::vector<std::string_view> args;
  for (int i = 0; i < ac && av != nullptr; ++i) {
    if (av[i] != nullptr) args.emplace_back(av[i]);
  }
  return args;
}

// Reads the plugstack.conf arguments into state(). Called from init and again from
// prolog/epilog: Slurm runs job_prolog/job_epilog in a fresh process without calling
// slurm_spank_init (plugstack.c, spank_job_script), so the arguments arrive only there.
void configure(int ac, char** av, bool log_errors) {
  const gaptrain::plugin::ParsedArgs parsed =
      gaptrain::plugin::parse_plugin_args(arguments(ac, av));
  state().config = parsed.config;
  if (log_errors) {
    for (const std::string& error : parsed.errors) slurm_error("%s", error.c_str());
  }
}

// A job-environment variable in remote context ("" when absent or unreadable).
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

// Sends `request` and logs one line when it did not go through; the caller then carries on.
void send(const gaptrain::protocol::Request& request, std::uint32_t job_id, const char* node) {
  const gaptrain::plugin::Outcome outcome = gaptrain::plugin::notify(state().config, request);
  const std::string type(gaptrain::protocol::type_name(request));
  if (outcome.ok) {
    slurm_debug("gaptrain: job %u node %s: %s delivered", job_id, node, type.c_str());
  } else {
    slurm_info("gaptrain: job %u node %s: %s not delivered (%s); the job runs normally", job_id,
               node, type.c_str(), outcome.message.c_str());
  }
}

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

int option_callback(int val, const char* arg, int remote) {
  // Remote side: the values were checked at submission; refusing now would fail a job that
  // already started. The batch step re-reads what it needs with spank_option_getopt.
  if (remote != 0) return 0;
  const std::string value = arg != nullptr ? arg : "";
  State& s = state();
  switch (val) {
    case GAPTRAIN_OPT_ELASTIC:
      s.elastic = true;
      if (!value.empty()) s.range = gaptrain::plugin::parse_node_range(value);
      return 0;
    case GAPTRAIN_OPT_CURVE: s.curve = gaptrain::plugin::read_curve_file(value); return 0;
    case GAPTRAIN_OPT_COST: s.costs = gaptrain::plugin::parse_costs(value); return 0;
    default: return 0;
  }
}

int init_post_opt(spank_t sp) {
  const spank_context_t context = spank_context();
  if (context != S_CTX_LOCAL && context != S_CTX_ALLOCATOR) return 0;
  const State& s = state();
  if (!s.elastic && (s.curve || s.costs)) {
    slurm_error(
        "gaptrain: --%s only applies to elastic jobs: add --elastic (e.g. -N 2-8 "
        "--elastic=2-8)",
        s.curve ? "elastic-curve" : "elastic-cost");
    // Slurm ignores a failing init_post_opt of an "optional" plugin (plugstack.c,
    // _do_call_stack), and option callbacks cannot see the other options. This runs in the
    // submitting command before anything was created, so ending it is the refusal.
    std::exit(1);
  }
  if (s.elastic && s.curve) {
    const std::string compact = gaptrain::plugin::curve_to_compact(*s.curve);
    if (spank_job_control_setenv(sp, kCurveVariable, compact.c_str(), 1) != ESPANK_SUCCESS) {
      slurm_info("gaptrain: cannot pass the curve to the job; it will be learned online");
    }
  }
  return 0;
}

int user_init(spank_t sp, spank_option* options) {
  const State& s = state();
  if (spank_context() != S_CTX_REMOTE || !s.config.controller) return 0;
  std::uint32_t step = 0;
  if (spank_get_item(sp, S_JOB_STEPID, &step) != ESPANK_SUCCESS || step != kBatchScriptStep) {
    return 0;  // only the batch step registers, once per job
  }
  char* elastic_arg = nullptr;
  if (spank_option_getopt(sp, &options[0], &elastic_arg) != ESPANK_SUCCESS) return 0;

  gaptrain::protocol::JobRegistration r;
  uid_t uid = 0;
  const char* node = std::getenv("SLURMD_NODENAME");  // slurmstepd sets it for itself
  if (spank_get_item(sp, S_JOB_ID, &r.job_id) != ESPANK_SUCCESS ||
      spank_get_item(sp, S_JOB_UID, &uid) != ESPANK_SUCCESS || node == nullptr) {
    slurm_info("gaptrain: batch step without job id, uid or SLURMD_NODENAME; not registered");
    return 0;
  }
  r.user = user_name(uid);
  r.batch_host = node;

  // Slurm shows no SPANK context the -N MIN-MAX range (sbatch hands plugins only uid/gid, and
  // a running job's record keeps no max), so the range comes from --elastic=MIN-MAX; without
  // it the job keeps the size it started with.
  try {
    if (elastic_arg != nullptr && *elastic_arg != '\0') {
      const NodeRange range = gaptrain::plugin::parse_node_range(elastic_arg);
      r.min_nodes = range.min;
      r.max_nodes = range.max;
    } else {
      const int now = std::atoi(job_getenv(sp, "SLURM_JOB_NUM_NODES").c_str());
      r.min_nodes = r.max_nodes = now > 0 ? now : 1;
    }
  } catch (const OptionError& e) {
    slurm_info("gaptrain: job %u: %s; not registered", r.job_id, e.what());
    return 0;
  }
  if (const std::string compact = job_getenv(sp, kCurveInJob); !compact.empty()) {
    try {
      const gaptrain::plugin::Curve points = gaptrain::plugin::curve_from_compact(compact);
      if (!points.empty()) r.curve = gaptrain::ScalingCurve(points);
    } catch (const OptionError& e) {
      slurm_info("gaptrain: job %u: %s; the curve will be learned online", r.job_id, e.what());
    }
  }
  char* cost_arg = nullptr;
  if (spank_option_getopt(sp, &options[2], &cost_arg) == ESPANK_SUCCESS && cost_arg != nullptr) {
    try {
      const Costs costs = gaptrain::plugin::parse_costs(cost_arg);
      r.up_cost_s = costs.up_s;
      r.down_cost_s = costs.down_s;
    } catch (const OptionError& e) {
      slurm_info("gaptrain: job %u: %s; costs will be learned online", r.job_id, e.what());
    }
  }
  // gaptrain-launch (the batch script) sends it again when gaptraind does not know the job:
  // down as the job starts, or restarted without its state (plugin/launch/registration_retry).
  const std::string registration = gaptrain::protocol::encode(r);
  if (spank_setenv(sp, kRegistrationVariable, registration.c_str(), 1) != ESPANK_SUCCESS) {
    slurm_info("gaptrain: job %u: cannot pass the registration to the job's launcher", r.job_id);
  }
  send(r, r.job_id, node);
  return 0;
}

}  // namespace

extern "C" {

int gaptrain_option_cb(int val, const char* value, int remote) {
  try {
    return option_callback(val, value, remote);
  } catch (const OptionError& e) {
    slurm_error("gaptrain: %s", e.what());
  } catch (const std::exception& e) {
    slurm_error("gaptrain: option check failed: %s", e.what());
  } catch (...) {
    slurm_error("gaptrain: option check failed");
  }
  return -1;  // only reached in local/allocator context: refuse the submission
}

int gaptrain_spank_init(spank_t /*sp*/, int ac, char** av) {
  try {
    // Admin mistakes go to slurmd's log (slurmd context; prolog/epilog log their own), not to
    // every user's terminal.
    configure(ac, av, spank_context() == S_CTX_SLURMD);
  } catch (...) {
    slurm_error("gaptrain: cannot read plugin arguments; the plugin is inert");
  }
  return 0;
}

int gaptrain_spank_init_post_opt(spank_t sp, int /*ac*/, char** /*av*/) {
  try {
    return init_post_opt(sp);
  } catch (const std::exception& e) {
    slurm_error("gaptrain: %s", e.what());
  } catch (...) {
    slurm_error("gaptrain: option check failed");
  }
  return spank_context() == S_CTX_REMOTE ? 0 : -1;
}

int gaptrain_spank_job_prolog(spank_t sp, int ac, char** av, spank_option* elastic_option) {
  try {
    configure(ac, av, true);
    if (!state().config.controller) return 0;
    std::uint32_t job_id = 0;
    const char* node = nullptr;
    if (!job_and_node(sp, job_id, node)) return 0;
    char* arg = nullptr;
    const bool elastic = spank_option_getopt(sp, elastic_option, &arg) == ESPANK_SUCCESS;
    send(gaptrain::protocol::NodeTaken{job_id, node, elastic}, job_id, node);
  } catch (...) {
    slurm_info("gaptrain: prolog notification failed; the job runs normally");
  }
  return 0;
}

int gaptrain_spank_job_epilog(spank_t sp, int ac, char** av) {
  try {
    configure(ac, av, false);  // the prolog of the same job already reported bad arguments
    if (!state().config.controller) return 0;
    std::uint32_t job_id = 0;
    const char* node = nullptr;
    if (!job_and_node(sp, job_id, node)) return 0;
    send(gaptrain::protocol::NodeFreed{job_id, node}, job_id, node);
  } catch (...) {
    slurm_info("gaptrain: epilog notification failed");
  }
  return 0;
}

int gaptrain_spank_user_init(spank_t sp, int /*ac*/, char** /*av*/, spank_option* options) {
  try {
    return user_init(sp, options);
  } catch (...) {
    slurm_info("gaptrain: registration failed; the job runs without gaptrain");
  }
  return 0;
}

}  // extern "C"
