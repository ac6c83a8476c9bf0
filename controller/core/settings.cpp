#include "core/settings.hpp"

#include <sstream>

namespace gaptrain::core {

namespace {

constexpr Setting numeric(const NumberSetting& n, SettingType type, std::string_view default_json,
                          std::string_view description) {
  return {n.key, type, default_json, n.min, n.max, description};
}

}  // namespace

const std::array<Setting, 32>& daemon_settings() {
  using enum SettingType;
  static constexpr std::array<Setting, 32> kSettings{{
      {"listen", address, "\"127.0.0.1:6830\"", 0, 0,
       "HOST:PORT (numeric) the daemon accepts plugin events and status requests on"},
      {"munge_socket", text, "\"\"", 0, 0, "path of munged's socket; \"\" for munged's default"},
      numeric(kPollIntervalS, seconds, "2.0", "seconds between polls of slurmctld"),
      numeric(kWatchIntervalS, seconds, "0.5",
              "seconds between polls while elastic jobs hold nodes"),
      {"elastic_partition", text, "\"elastic\"", 0, 0,
       "the Slurm partition elastic jobs run in; several joined by commas (\"gpu,cpu\"), each "
       "with its own holes, jobs and caps"},
      {"node_types", names, "[]", 0, 0,
       "node types, as features or GRES types nodes have (e.g. [\"a100\", \"v100\"]); a job "
       "runs on one type at a time"},
      {"satellite_qos", text, "\"\"", 0, 0,
       "the QOS satellites run in, one Slurm may preempt for regular jobs; \"\": the job's own"},
      {"satellite_partition", text, "\"\"", 0, 0,
       "the partition satellites are allocated in, over the same nodes at a higher PriorityTier; "
       "\"\": the job's own"},
      {"home_partition", text, "\"\"", 0, 0,
       "the partition of shared home nodes elastic jobs' batch scripts run in, every training "
       "node a satellite; \"\": batch scripts on a training node"},
      {"satellite_reservation", text, "\"\"", 0, 0,
       "a licences-only ANY_NODES reservation satellites are made in, so that Slurm before 24.11 "
       "does not refuse them while a regular job pends; \"\": none"},
      {"log_level", text, "\"info\"", 0, 0, "\"debug\", \"info\" or \"warning\""},
      {"resize", flag, "true", 0, 0, "whether jobs are resized (false: watch and plan only)"},
      numeric(kHorizonS, seconds, "120.0", "the allocator's look-ahead"),
      numeric(kLeaseS, seconds, "300.0", "how far ahead elastic jobs' time limits are kept"),
      numeric(kDrainGraceS, seconds, "10.0", "how long an allocator shrink waits for the job"),
      numeric(kReclaimGraceS, seconds, "2.0", "how long a reclaim waits for the job"),
      numeric(kMaxNoticeS, seconds, "600.0",
              "the most notice a job gets before it loses a node (0: none)"),
      numeric(kIdleReserveNodes, count, "0", "idle nodes elastic work never starts on"),
      {"objective", text, "\"speedup\"", 0, 0,
       "the allocator's objective: \"throughput\", \"speedup\" or \"fair\""},
      numeric(kFairP, number, "0.0",
              "the fair objective's exponent: 0 proportional fairness, -1 Pollux's, 1 speedup"),
      {"account_weights", weights, "{}", 0, 0,
       "each account's weight under the fair objective, e.g. {\"physics\": 2}; others 1"},
      numeric(kMaxRunningPerUser, count, "0", "elastic jobs one user runs at once (0: no cap)"),
      numeric(kMaxNodesPerUser, count, "0", "nodes one user's elastic jobs hold (0: no cap)"),
      numeric(kMaxRunningPerAccount, count, "0",
              "elastic jobs one account runs at once (0: no cap)"),
      numeric(kMaxNodesPerAccount, count, "0", "nodes one account's elastic jobs hold (0: no cap)"),
      numeric(kMaxElasticPercent, count, "100",
              "percent of the elastic partition's nodes elastic jobs hold at most"),
      {"state_file", text, "\"/var/lib/gaptrain/state.json\"", 0, 0,
       "absolute path of the state kept across restarts; \"\" for none"},
      {"metrics_listen", address, "\"\"", 0, 0, "HOST:PORT Prometheus scrapes; \"\" for none"},
      numeric(kMaxConnections, count, "512", "requests served at once"),
      numeric(kMaxConnectionsPerPeer, count, "64", "requests served at once for one address"),
      numeric(kJobHistory, count, "200", "ended jobs whose history `gaptrain job` still shows"),
      numeric(kJobHistoryPoints, count, "4000",
              "points kept of a job's history; older progress is thinned beyond"),
  }};
  return kSettings;
}

const Setting* find_setting(std::string_view key) {
  for (const Setting& setting : daemon_settings())
    if (setting.key == key) return &setting;
  return nullptr;
}

std::string settings_help() {
  std::ostringstream text;
  text << "Settings (keys of the configuration file, all optional):\n";
  for (const Setting& setting : daemon_settings()) {
    text << "  " << setting.key << " = " << setting.default_json;
    if (setting.type == SettingType::seconds || setting.type == SettingType::count ||
        setting.type == SettingType::number) {
      text << " (" << setting.min << " to " << setting.max << ")";
    }
    text << ": " << setting.description << "\n";
  }
  return text.str();
}

}  // namespace gaptrain::core
