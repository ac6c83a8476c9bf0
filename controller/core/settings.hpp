// gaptraind's settings as one table: each key of gaptraind.json with its type, default, bounds
// and a one-line description. The configuration parser (config.cpp) takes the keys and bounds
// from here, the structs that hold a setting (DaemonConfig, PlannerSettings, ResizerSettings,
// the simulator's options) their defaults, and a test checks etc/README.md's table and
// etc/gaptraind.json against it, so a default is written once.
#pragma once

#include <array>
#include <string>
#include <string_view>

namespace gaptrain::core {

enum class SettingType { seconds, count, number, text, flag, address, weights, names };

struct Setting {
  std::string_view key;
  SettingType type;
  // The default as gaptraind.json writes it ("120.0", "\"elastic\"", "true").
  std::string_view default_json;
  double min = 0.0;  // seconds, counts and numbers only
  double max = 0.0;
  std::string_view description;
};

// A number setting's default and bounds, usable in constant expressions (struct defaults).
struct NumberSetting {
  std::string_view key;
  double default_value;
  double min;
  double max;
};

// Polls: below 0.1 s the daemon would load slurmctld for nothing (plugin events trigger
// immediate polls anyway); above an hour holes would be seen far too late.
inline constexpr NumberSetting kPollIntervalS{"poll_interval_s", 2.0, 0.1, 3600.0};
inline constexpr NumberSetting kWatchIntervalS{"watch_interval_s", 0.5, 0.1, 3600.0};
// The allocator's look-ahead: the simulator's sweep on KTH-SP2 found 120 s best.
inline constexpr NumberSetting kHorizonS{"horizon_s", 120.0, 1.0, 86400.0};
// The allocator's time limit per decision (not a key of gaptraind.json: a poll must end).
inline constexpr double kSolveTimeLimitS = 1.0;
// A lease is a Slurm time limit: whole minutes, at least one.
inline constexpr NumberSetting kLeaseS{"lease_s", 300.0, 60.0, 7.0 * 86400.0};
inline constexpr NumberSetting kDrainGraceS{"drain_grace_s", 10.0, 0.0, 3600.0};
// A reclaim's grace: the most a regular job waits for a leaving worker (docs/resizing.md,
// "How long a reclaim may take": measured, a worker leaves 0.14-0.22 s after the drain is asked).
inline constexpr NumberSetting kReclaimGraceS{"reclaim_grace_s", 2.0, 0.0, 60.0};
// The most notice a job gets of a node it will lose (its --elastic-notice, capped); 0: none.
inline constexpr NumberSetting kMaxNoticeS{"max_notice_s", 600.0, 0.0, 86400.0};
// The notice of a job that asks for none: Slurm's default KillWait, the time Slurm itself gives
// a job between SIGTERM and SIGKILL, so a job written for Slurm already lets go within it.
inline constexpr double kDefaultNoticeS = 30.0;
// The fair objective's exponent (allocator::fair_value): allocator::kMinFairP to kMaxFairP.
inline constexpr NumberSetting kFairP{"fair_p", 0.0, -4.0, 1.0};
inline constexpr NumberSetting kIdleReserveNodes{"idle_reserve_nodes", 0, 0, 100000};
// Each connection is a file descriptor; more than 65536 at once is a misconfiguration.
inline constexpr NumberSetting kMaxConnections{"max_connections", 512, 1, 65536};
inline constexpr NumberSetting kMaxConnectionsPerPeer{"max_connections_per_peer", 64, 1, 65536};
// What `gaptrain job` can still show (job_history.hpp): ended jobs kept, and the points kept per
// job (older progress is thinned past it). 10,000 jobs of 100,000 points are a few GB: the cap.
inline constexpr NumberSetting kJobHistory{"job_history", 200, 0, 10000};
inline constexpr NumberSetting kJobHistoryPoints{"job_history_points", 4000, 100, 100000};

// The elastic queue policy's caps (queue_policy.hpp); 0 is no cap.
inline constexpr NumberSetting kMaxRunningPerUser{"max_running_per_user", 0, 0, 100000};
inline constexpr NumberSetting kMaxNodesPerUser{"max_nodes_per_user", 0, 0, 100000};
inline constexpr NumberSetting kMaxRunningPerAccount{"max_running_per_account", 0, 0, 100000};
inline constexpr NumberSetting kMaxNodesPerAccount{"max_nodes_per_account", 0, 0, 100000};
inline constexpr NumberSetting kMaxElasticPercent{"max_elastic_percent", 100, 1, 100};

inline constexpr std::string_view kDefaultElasticPartition = "elastic";
inline constexpr std::string_view kDefaultStateFile = "/var/lib/gaptrain/state.json";

// Every key of gaptraind.json, in the order etc/gaptraind.json lists them.
const std::array<Setting, 32>& daemon_settings();

// The record of `key`, or nullptr for a key gaptraind does not know.
const Setting* find_setting(std::string_view key);

// The table as `gaptraind --help` shows it: one line per key with its default, bounds and
// description.
std::string settings_help();

}  // namespace gaptrain::core
