// gaptraind's configuration: a JSON file (default /etc/gaptrain/gaptraind.json), every key
// optional with the defaults below (etc/gaptraind.json, etc/README.md). Parsing is strict so a
// typo never silently falls back to a default: an unknown key or a bad value is an InputError
// naming the key and saying what to do, and the daemon refuses to start (or, on SIGHUP, keeps
// the configuration it runs with).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "allocator/allocation.hpp"
#include "core/elastic_partitions.hpp"
#include "core/queue_policy.hpp"
#include "core/settings.hpp"

namespace gaptrain::core {

inline constexpr const char* kDefaultConfigPath = "/etc/gaptrain/gaptraind.json";

enum class LogLevel { debug, info, warning };

// Where the daemon listens: a numeric address, because a listening socket must not depend on
// name resolution at boot.
struct ListenAddress {
  std::string host = "127.0.0.1";  // IPv4 or IPv6 literal, without brackets
  std::uint16_t port = 6830;

  friend bool operator==(const ListenAddress&, const ListenAddress&) = default;
};

struct DaemonConfig {
  ListenAddress listen;
  std::string munge_socket;  // "" = munged's default socket
  double poll_interval_s = kPollIntervalS.default_value;
  // The poll interval while elastic jobs hold nodes: a regular job submitted then is seen (and
  // its nodes reclaimed) within this long. Submissions trigger no plugin event.
  double watch_interval_s = kWatchIntervalS.default_value;
  ElasticPartitions elastic_partitions;  // "elastic_partition": one, or several ("gpu,cpu")
  // The node types (node_type.hpp): names of features or GRES types, in the order they are tried.
  std::vector<std::string> node_types;
  // The QOS satellites run in: one the site's regular QOS may preempt (preempt/qos, PreemptMode
  // CANCEL), so that slurmctld frees a satellite's node for a regular job at once, without
  // waiting for gaptraind (docs/admin.md, "Satellites Slurm frees itself"). "": the job's own.
  std::string satellite_qos;
  // The partition satellites are allocated in; "": their job's. One over the same nodes at a
  // higher PriorityTier, so that a pending regular job does not make Slurm refuse a satellite
  // in a hole ("insufficient priority"); docs/admin.md.
  std::string satellite_partition;
  // The home mode (docs/admin.md, "A home for batch scripts"): the partition of shared nodes
  // that never train, where an admitted elastic job's batch script (gaptrain-launch) runs; every
  // node it trains on is then a satellite, which Slurm may take at any moment, and a job that
  // loses them all is paused rather than requeued. "": today's mode, the batch script on the
  // first node the job trains on.
  std::string home_partition;
  // The reservation satellites are made in: one of licences only with ANY_NODES (docs/admin.md,
  // "Grows Slurm refuses for priority"), so that slurmctld 22.05-24.05, which ranks an immediate
  // allocation by priority alone, does not refuse a satellite while a regular job pends. "": none.
  std::string satellite_reservation;
  LogLevel log_level = LogLevel::info;
  double horizon_s = kHorizonS.default_value;  // the allocator's look-ahead
  // How far ahead of now elastic jobs' time limits are kept: the longest a node stays with an
  // elastic job after gaptraind died, and the wait of a regular job that needs it meanwhile.
  double lease_s = kLeaseS.default_value;
  // An allocator shrink waits this long for the job to let go; a reclaim (a regular job waits)
  // only the second.
  double drain_grace_s = kDrainGraceS.default_value;
  double reclaim_grace_s = kReclaimGraceS.default_value;
  // The cap on the notice a job asks for (--elastic-notice) of a node it will lose; 0 gives no
  // notices at all.
  double max_notice_s = kMaxNoticeS.default_value;
  // Idle nodes elastic work never starts on: regular jobs submitted meanwhile start there at
  // once instead of waiting for a reclaim (PlannerSettings::idle_reserve_nodes).
  int idle_reserve_nodes = static_cast<int>(kIdleReserveNodes.default_value);
  // The allocator's objective and the elastic queue policy (queue_policy.hpp: admission order,
  // caps, account weights).
  allocator::Objective objective = allocator::Objective::speedup;
  double fair_p = kFairP.default_value;  // the fair objective's exponent
  QueuePolicy queue;
  // Where the elastic jobs' registrations outlive a restart (state_file.hpp); "" keeps them in
  // memory only. systemd's StateDirectory=gaptrain makes /var/lib/gaptrain writable.
  std::string state_file{kDefaultStateFile};
  // Where Prometheus scrapes /metrics (metrics.hpp); empty: not served.
  std::optional<ListenAddress> metrics_listen;
  bool resize = true;  // false: watch and plan, change no job ("not applied" logs)
  // Connections open at once, all peers together and from one address: below the file
  // descriptor limit (systemd's default soft limit is 1024), and one host's flood (or its
  // many slurmd) cannot take every slot from the plugins of the others.
  int max_connections = static_cast<int>(kMaxConnections.default_value);
  int max_connections_per_peer = static_cast<int>(kMaxConnectionsPerPeer.default_value);
  // What `gaptrain job` shows (job_history.hpp): ended jobs kept, points kept per job.
  int job_history = static_cast<int>(kJobHistory.default_value);
  int job_history_points = static_cast<int>(kJobHistoryPoints.default_value);

  friend bool operator==(const DaemonConfig&, const DaemonConfig&) = default;
};

// "HOST:PORT" or "[IPV6]:PORT" with a numeric host and a port in 1..65535; throws InputError
// (field "listen").
ListenAddress parse_listen(std::string_view text);
std::string to_string(const ListenAddress& address);

// The configuration in `json_text`. Throws InputError whose field is the offending key (""
// when the text is not a JSON object) and whose message says how to fix it. Reading
// the file is the caller's (gaptrain/text_file.hpp): the parser does no I/O.
DaemonConfig parse_config(std::string_view json_text);

std::string_view to_string(LogLevel level);

}  // namespace gaptrain::core
