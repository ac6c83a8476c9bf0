#include "process_state.hpp"

#include <string>
#include <string_view>
#include <vector>

#include "notify.hpp"

namespace gaptrain::plugin {
namespace {

// SPANK gives callbacks no user pointer, so the configuration lives in a function-local static.
PluginConfig& config_slot() {
  static PluginConfig config;
  return config;
}

}  // namespace

const PluginConfig& plugin_config() {
  return config_slot();
}

int load_plugin_args(int ac, char** av, bool log_refusal) noexcept {
  return guarded("cannot read the plugstack.conf arguments", -1, [&] {
    std::vector<std::string_view> args;
    for (int i = 0; i < ac && av != nullptr; ++i) {
      if (av[i] != nullptr) args.emplace_back(av[i]);
    }
    const ParsedArgs parsed = parse_plugin_args(args);
    if (!parsed.error.empty()) {
      if (log_refusal) slurm_error("%s", parsed.error.c_str());
      return -1;
    }
    config_slot() = parsed.config;
    return 0;
  });
}

void deliver(const protocol::Request& request, std::uint32_t job_id, const char* node) {
  const Outcome outcome = notify(plugin_config(), request);
  const std::string type(protocol::type_name(request));
  if (outcome.ok) {
    slurm_debug("gaptrain: job %u node %s: %s delivered", job_id, node, type.c_str());
  } else {
    slurm_info("gaptrain: job %u node %s: %s not delivered (%s); the job runs normally", job_id,
               node, type.c_str(), outcome.message.c_str());
  }
}

}  // namespace gaptrain::plugin
