// The daemon's picture of the cluster as plain values: what the Slurm adapter produces from
// libslurm and what the pure model (holes, elastic jobs, status) consumes. Host lists are
// already expanded ("n[2-3]" -> n2, n3) so nothing downstream needs libslurm. Times are epoch
// seconds; 0 means "not known".
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace gaptrain::core {

// A node's state as gaptrain cares about it. Slurm's base state plus the flags that decide
// whether the node can host elastic work (drain, completing, planned...).
enum class NodeState {
  idle,        // free for anything
  planned,     // idle, but backfill plans a pending job on it (a hole with a known end)
  completing,  // the last job's epilog still runs: not free yet
  allocated,
  mixed,     // some CPUs allocated
  draining,  // allocated and drain requested: will not take new work
  drained,   // idle and drained
  down,      // down, failing, not responding or powered down
  future,
  unknown,
};

std::string_view to_string(NodeState state);

// Where a node's type came from (gaptraind.json "node_types"): a feature or the type of its
// GRES (gpu:a100:4). A satellite on the node asks Slurm for it the same way.
enum class NodeTypeSource { none, feature, gres };

struct Node {
  std::string name;
  NodeState state = NodeState::unknown;
  std::int64_t last_busy = 0;  // when the node last had a job (Slurm's last_busy), 0 unknown
  // Its node type: one of the configured node_types it has, "" for none (or none
  // configured). The allocator runs a job on one type at a time.
  std::string type = {};
  NodeTypeSource type_source = NodeTypeSource::none;
  // As Slurm says them, for the type (node_type.hpp): active features ("ib,a100") and GRES
  // ("gpu:a100:4(S:0-1)").
  std::string features = {};
  std::string gres = {};
  // Slurm's scheduling weight (slurm.conf Weight=): Slurm offers lower weights first
  // (slurm_node_order.hpp).
  std::uint32_t weight = 1;
};

enum class JobState { pending, running, suspended, finished };

// Why a pending job waits, as far as reclaiming nodes is concerned: only a job waiting for
// nodes (or behind higher-priority jobs, or not yet looked at) would start if nodes were free.
enum class PendingReason {
  none,       // Slurm has not decided yet (just submitted)
  priority,   // higher-priority jobs go first
  resources,  // waits for nodes
  other,      // what free nodes would not fix: dependency, begin time, limits, hold, ...
};

std::string_view to_string(JobState state);

struct Job {
  std::uint32_t id = 0;
  std::string name;
  std::uint32_t user_id = 0;
  std::uint32_t group_id = 0;
  std::string user;  // empty when Slurm did not resolve it
  std::string partition;
  // What the job is charged to (sbatch --account, --qos; empty: not known). Its satellites are
  // charged the same, under the same association's and QOS's limits.
  std::string account;
  std::string qos;
  // The generic resources it asked for on each node (--gres, --gpus-per-node), as Slurm words
  // them ("gres/gpu:2"; empty: none): its satellites ask for the same, or their steps would
  // find no GPU.
  std::string tres_per_node;
  std::string tres_per_job;
  // Its --constraint as Slurm keeps it ("[a100|v100]"): the node types it may start on.
  std::string features = {};  // what it asked for in all (--gpus: "gres/gpu:8"); empty: nothing
  JobState state = JobState::pending;
  bool completing = false;         // its epilog still runs somewhere
  std::vector<std::string> nodes;  // allocated nodes (running jobs)
  std::string batch_host;          // where the batch script runs (running batch jobs)
  // An elastic job whose batch script runs on a home node (home.hpp): `partition` is then the
  // one it trains in and `nodes` holds no home node; it trains on satellites only.
  bool at_home = false;
  std::int64_t start_time = 0;  // actual, or expected for a pending job planned by backfill
  std::int64_t end_time = 0;    // actual or expected
  std::vector<std::string> sched_nodes;  // pending: the nodes backfill plans to start it on
  std::uint32_t time_limit_minutes = 0;  // 0: none (Slurm's INFINITE or NO_VAL)
  std::uint32_t min_nodes = 0;           // as requested (-N MIN-MAX); 0 when not known
  std::uint32_t max_nodes = 0;
  bool held = false;           // pending with priority 0 (sbatch --hold, scontrol hold)
  std::uint32_t priority = 0;  // Slurm's, higher first
  // When a pending job may start at the earliest (--begin; a requeued job's is 2 minutes on; a
  // parked one's far ahead, parking.hpp).
  std::int64_t eligible_time = 0;
  bool requeued = false;      // Slurm requeued it at least once
  bool completed_ok = false;  // finished as COMPLETED (exit 0): what afterok waits for
  // Ended or ending PREEMPTED: slurmctld took its nodes for a job of a QOS that may preempt its
  // own (a satellite in DaemonConfig::satellite_qos).
  bool preempted = false;
  std::int64_t submit_time = 0;  // when it was submitted: FCFS among equals
  // Its dependency as Slurm lists it while unmet ("afterok:12(unfulfilled)"); empty: none left.
  std::string dependency;
  PendingReason reason = PendingReason::other;  // pending jobs only
  // Only admins write it: where gaptraind keeps what it must not lose (job_mark.hpp).
  std::string admin_comment;
  // What ties a pending job to some nodes (node_needs.hpp), beside its partition and features:
  // the nodes it named (-w/--nodelist: it starts on every one of them), those it refused
  // (-x/--exclude), and the reservation(s) it runs in (--reservation, comma-separated; empty:
  // none).
  std::vector<std::string> required_nodes = {};
  std::vector<std::string> excluded_nodes = {};
  std::string reservation = {};
};

struct Partition {
  std::string name;
  std::vector<std::string> nodes;
  std::uint32_t priority_tier = 1;  // slurm.conf's PriorityTier (Slurm's default 1)
};

struct Reservation {
  std::string name;
  std::int64_t start_time = 0;
  std::int64_t end_time = 0;
  std::vector<std::string> nodes;
};

// What slurm.conf's PrivateData hides from users other than root and SlurmUser, as far as
// gaptrain shows it (status_privacy.hpp). Not known yet (no answer from slurmctld): all().
struct PrivateData {
  bool jobs = false;          // a user sees their own jobs only
  bool nodes = false;         // a user sees no node states (holes are node states)
  bool reservations = false;  // a user sees no reservations
  bool usage = false;         // a user sees no other user's usage (sshare, sreport)
  bool users = false;         // a user sees no other user's records (sacctmgr)
  bool accounts = false;      // a user sees only accounts they coordinate
  static PrivateData all() { return {true, true, true, true, true, true}; }
};

struct Snapshot {
  std::int64_t taken_at = 0;  // when it was polled
  std::vector<Node> nodes;
  std::vector<Job> jobs;
  std::vector<Reservation> reservations;
  std::vector<Partition> partitions;
};

// An elastic job's extra nodes are held by "satellite" allocations, one per node, named after
// the job (slurm_actions.hpp, grow): "gaptrain:<job id>".
std::string satellite_name(std::uint32_t job_id);
// The job a satellite allocation belongs to, from its name; empty for any other name.
std::optional<std::uint32_t> satellite_owner(std::string_view job_name);
// Whether `job` is a satellite of `owner`. Any user may name a job "gaptrain:<id>", so the name
// alone proves nothing: a satellite is also the owner's user's (gaptraind allocates it on their
// behalf) and in the owner's partition (the elastic partition) or in `satellite_partition`
// (DaemonConfig::satellite_partition; "" for none). What fails this is someone else's job:
// never merged into an elastic job, never cancelled.
bool is_satellite_of(const Job& job, const Job& owner, std::string_view satellite_partition = {});
// Whether a satellite of a job of `job_partition` may be in `partition`: its job's partition, or
// `satellite_partition` when one is configured ("" for none).
bool in_satellite_partition(std::string_view partition, std::string_view job_partition,
                            std::string_view satellite_partition);

// The node count in a job's requested TRES ("cpu=1,mem=1M,node=2,billing=1": 2); empty when
// it names none or the count does not read. For a pending job this is its minimum (-N MIN-MAX):
// the node count Slurm reports for a pending job it has tried to place is its guess of what the
// job would get (node_cnt_wag; a job parked by a far begin time shows its maximum there), and
// only a held job's is the minimum.
std::optional<std::uint32_t> requested_node_count(std::string_view tres_req);

// The job with `id` in `snapshot`, or nullptr.
const Job* find_job(const Snapshot& snapshot, std::uint32_t id);

// find_job for many look-ups in one snapshot (one per satellite of every elastic job): indexed
// once rather than searched each time. Valid while `snapshot` is unchanged.
class JobIndex {
 public:
  explicit JobIndex(const Snapshot& snapshot);
  const Job* find(std::uint32_t id) const;

 private:
  std::unordered_map<std::uint32_t, const Job*> by_id_;
};

// The node types (of the snapshot's nodes) a job's constraint names, in its order: "[a100|v100]"
// and "a100|v100" name both; a feature that is no node's type is not one.
std::vector<std::string> types_in_constraint(const std::string& constraint,
                                             const Snapshot& snapshot);

// Each node's type, for many look-ups in one snapshot (every hole and held node of a plan).
// Empty, and each answer "", when no node has a type: a site without node types pays nothing.
class NodeTypes {
 public:
  explicit NodeTypes(const Snapshot& snapshot);
  const std::string& of(const std::string& node) const;

 private:
  std::unordered_map<std::string, std::string> type_of_;
};

// The nodes a job of `partitions` (Slurm's comma-separated list for a pending job) may run on:
// the union of theirs, in the snapshot's order. nullopt when the snapshot lists no partitions
// (every node then qualifies).
std::optional<std::set<std::string>> partition_nodes(const Snapshot& snapshot,
                                                     std::string_view partitions);

// A job holds its nodes while it runs or is suspended.
inline bool holds_nodes(const Job& job) {
  return job.state == JobState::running || job.state == JobState::suspended;
}

}  // namespace gaptrain::core
