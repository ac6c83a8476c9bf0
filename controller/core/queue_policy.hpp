// The elastic queue policy (docs/admin.md, "Queue policy"): which waiting elastic jobs
// (parking.hpp: parked or held) the allocator may admit, in which order, and how far the caps
// let jobs grow. Pure: the snapshot and the jobs in, the admissible candidates and the trimmed
// grows out.
//
// Order: Slurm's priority of the job, higher first, then submit time (FCFS), then job id. A
// job submitted with --hold has priority 0 in Slurm (priority/multifactor recomputes no held
// job, and sprio lists none), so among --hold jobs the order is FCFS, after every parked job; a
// parked job (a begin time far ahead) keeps the priority Slurm computes for it, fair-share
// included.
// Admission backfills as Slurm does, with the head's start protected: the first job whose
// minimum does not fit the nodes left after those ahead of it is the head; a job behind it whose
// minimum fits what is left still runs (it overtakes the head), and gives way once the head
// could start in its place: when the head's minimum fits the free nodes together with those of
// the running jobs that overtook it, they are requeued (the most recent first, as few as
// needed) and the head is admitted at the next poll. So a job that cannot start now (a whole
// partition asked for while another job holds a batch host) holds nobody back, and is delayed
// by the jobs that overtook it by one requeue at most (their drain grace and a poll).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/cluster.hpp"
#include "core/elastic_jobs.hpp"

namespace gaptrain::core {

// A cap of 0 is no cap.
struct QueuePolicy {
  int max_running_per_user = 0;     // elastic jobs running at once for one user
  int max_nodes_per_user = 0;       // nodes all of a user's elastic jobs hold together
  int max_running_per_account = 0;  // the same per Slurm account
  int max_nodes_per_account = 0;
  int max_elastic_percent = 100;  // of the elastic partition's nodes, elastic jobs hold at most
  // The fair objective's weight of each account's jobs (ElasticJob.weight); others weigh 1.
  // (A vector, not a map: GCC 12 warns a defaulted map in a compared temporary uninitialized.)
  std::vector<std::pair<std::string, double>> account_weights;

  double weight_of(const std::string& account) const;
  friend bool operator==(const QueuePolicy&, const QueuePolicy&) = default;
};

// The jobs admitted past the head of the queue (backfill), as the resizer recorded their
// admissions (Resizer::overtook) and requeues.
struct Backfilled {
  std::map<std::uint32_t, std::uint32_t> overtook;  // job -> the head it was admitted past
  std::set<std::uint32_t> requeuing;                // jobs whose requeue is under way
};

struct Admission {
  std::vector<ElasticJob> admissible;  // in admission order
  // The candidates held back, with why (shown by `gaptrain status`).
  std::vector<std::pair<std::uint32_t, std::string>> waiting;
  // The head of the queue that admissible jobs go past (backfill), 0 when none does.
  std::uint32_t head = 0;
  // The admissible jobs that go past it, each with the head.
  std::map<std::uint32_t, std::uint32_t> overtaking;
  // Running jobs that overtook the head and are requeued for it now: it fits in their place.
  std::vector<std::uint32_t> give_way;
};

// `candidates` (admission_candidates()) ordered and filtered by `policy`: a job whose
// dependency is unmet, that a cap holds, or whose minimum does not fit in `free_nodes` (the
// nodes the allocator may give: holes, and what running jobs hold beyond their minimums) after
// the jobs ahead of it, waits. Behind the first that does not fit (the head) jobs are admitted
// past it where their minimum fits (backfill), unless the head could start in place of the
// `running` jobs that overtook it (`backfilled`): then those give way and the jobs behind
// wait, as they do while such a requeue is under way. A candidate that gave way to a head
// still waiting comes after it, whatever its priority now. The caps
// count `running` and the jobs of `elastic_partition` gaptraind does not manage yet
// (admitted, launcher not registered yet; or started by Slurm itself).
Admission order_admissions(const Snapshot& snapshot, const std::vector<ElasticJob>& running,
                           std::vector<ElasticJob> candidates, std::size_t free_nodes,
                           std::size_t partition_nodes, const std::string& elastic_partition,
                           const QueuePolicy& policy, const Backfilled& backfilled = {});

// How many of `wanted` more nodes `job` may get under the node caps, given what every job of
// `holding` holds (jobs whose nodes count: running ones and those admitted this cycle).
// `grant` records the nodes given, so the next job's headroom counts them.
class NodeCaps {
 public:
  NodeCaps(const Snapshot& snapshot, const std::vector<ElasticJob>& holding,
           std::size_t partition_nodes, const QueuePolicy& policy);
  // `with_share` false: the user's and account's caps only, not the partition's elastic share.
  std::size_t allowed(std::uint32_t job_id, std::size_t wanted, bool with_share = true) const;
  void grant(std::uint32_t job_id, std::size_t nodes);
  // Nodes the partition's elastic share (max_elastic_percent) still has room for.
  std::size_t share_left() const;

 private:
  std::pair<std::string, std::string> owner(std::uint32_t job_id) const;  // user, account

  const QueuePolicy& policy_;
  std::size_t partition_cap_;
  std::size_t elastic_nodes_ = 0;
  std::map<std::uint32_t, std::pair<std::string, std::string>> owners_;
  std::map<std::string, std::size_t> user_nodes_;
  std::map<std::string, std::size_t> account_nodes_;
};

// True when a job's dependency (sbatch --dependency) is not met yet. Slurm does not evaluate
// the dependencies of a held job (it lists "afterok:12(unfulfilled)" after job 12 completed),
// so each entry it lists unfulfilled is judged here from the jobs in `jobs`: after (the job
// started), afterany (ended), afterok (completed), afternotok (ended otherwise); a job Slurm no
// longer lists counts as met, as Slurm counts it. Entries joined by "," must all be met, by "?"
// one; "(failed)" and the kinds not judged here (singleton, aftercorr, ...) are unmet.
bool dependency_unmet(const Job& job, const JobIndex& jobs);

}  // namespace gaptrain::core
