// Carries out the planner's decisions on the real jobs (docs/resizing.md, "Carrying it out"), one
// job at a time and never twice at once:
//  - grow: at once (the nodes are idle), as satellite allocations (slurm_actions.hpp);
//  - shrink and requeue: two-phase. The nodes to let go become the job's drain request (its
//    launcher learns it at its next report and stops the steps there), and the Slurm call is
//    made when the launcher acks every node, or when the grace time is over. A reclaim (a
//    regular job waits) has a short grace; the allocator's own shrinks a long one;
//  - admit: a parked or held elastic job gets its nodes and first lease, and is made eligible;
//  - leases: every managed job's (and satellite's) time limit is kept about one lease ahead of
//    now, so a dead controller holds no node longer than one lease. A satellite's is not renewed
//    while a regular job waits for its node; a job's own is, whatever is being reclaimed from it
//    (its end would end the whole job).
// A failed Slurm call never throws: it is noted with Slurm's reason and the job backs off
// (1 s, 2 s, 4 s ... capped), a drain is retried, a grow or admission is re-planned. Every
// action and its reason is noted for the journal ("action started/done/failed", ACTION=,
// JOB_ID=: notes.hpp); the caller takes the notes and logs them. Slurm is changed only through
// the SlurmActions port it is given.
#pragma once

#include <json/value.h>

#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/cluster.hpp"
#include "core/elastic_jobs.hpp"
#include "core/elastic_partitions.hpp"
#include "core/job_history.hpp"
#include "core/notes.hpp"
#include "core/notice.hpp"
#include "core/planner.hpp"
#include "core/slurm_actions.hpp"

namespace gaptrain::core {

struct ResizerSettings {
  // Allocator shrinks: time the training gets to let go cleanly; reclaims: a regular job
  // waits, so the job gets little; how far ahead of now a managed job's time limit is kept.
  double drain_grace_s = kDrainGraceS.default_value;
  double reclaim_grace_s = kReclaimGraceS.default_value;
  double lease_s = kLeaseS.default_value;
  double max_notice_s = kMaxNoticeS.default_value;  // the cap on a job's notice; 0: none
  double retry_min_s = 1.0;     // backoff after a failed Slurm call, doubled per failure...
  double retry_max_s = 15.0;    // ...up to this
  double admit_start_s = 10.0;  // an admitted job Slurm has not started by then is parked again
  ElasticPartitions elastic_partitions;  // where the jobs and their satellites are
  std::string satellite_qos;        // the QOS satellites run in; "": their job's (DaemonConfig)
  std::string satellite_partition;  // the partition they are allocated in; "": their job's
  // The home mode (home.hpp): admissions move a job's batch script to this partition, and the
  // job trains on satellites only. "": today's mode.
  std::string home_partition;
  std::string satellite_reservation;  // the reservation satellites are made in; "": none
};

// Both clocks: CLOCK_MONOTONIC seconds for deadlines, epoch seconds for Slurm's times.
struct Now {
  double mono = 0.0;
  std::int64_t wall = 0;
  // The Unix time to the sub-second, where known (0: `wall`). A drain's deadline is noticed
  // with it: a job told its node goes at the whole second before the deadline lost up to a
  // second of the reclaim's grace, and its launcher signalled the leaving worker that early.
  double wall_precise = 0.0;
};

// A shrink or requeue waiting for the job's launcher to let go of `drain`.
struct PendingDrain {
  ActionKind kind = ActionKind::shrink;
  std::vector<std::string> keep;   // shrink: the nodes kept, batch host included
  std::vector<std::string> drain;  // the nodes the job lets go
  std::string reason;
  std::uint32_t waiting_job = 0;  // the regular job a reclaim is for; 0 for the allocator's
  // Every regular job its nodes go to: a drain grows when another job waits (waiting_job is
  // the latest), and each of them stays served until the nodes are back.
  std::set<std::uint32_t> waiting_jobs;
  // The regular job each reclaimed node goes to (Action::goes_to); a node not in it goes to
  // waiting_job.
  std::map<std::string, std::uint32_t> goes_to;
  std::uint32_t going_to(const std::string& node) const {
    const auto it = goes_to.find(node);
    return it != goes_to.end() ? it->second : waiting_job;
  }
  // Adds a reclaim's nodes and regular jobs to the drain.
  void serve(const Action& action) {
    if (action.waiting_job != 0) waiting_jobs.insert(action.waiting_job);
    for (const auto& [node, job] : action.goes_to) {
      goes_to[node] = job;
      waiting_jobs.insert(job);
    }
  }
  double requested_at = 0.0;  // mono
  double deadline = 0.0;      // mono: the Slurm call is made by then, acked or not
};

// The last failure of a job's Slurm calls, while it backs off.
struct Backoff {
  ActionKind kind = ActionKind::shrink;
  std::string error;
  int failures = 0;
  double retry_at = 0.0;  // mono
};

struct ActionCounts {
  std::map<std::string, std::uint64_t> done;    // by ActionKind name, and "lease"
  std::map<std::string, std::uint64_t> failed;  // idem
};

class Resizer {
 public:
  Resizer(SlurmActions& slurm, ResizerSettings settings) : slurm_(slurm), settings_(settings) {}

  void set_settings(const ResizerSettings& settings) { settings_ = settings; }

  // Starts what `plan` decides for jobs that are not busy (a drain in flight or backing off):
  // grows and admissions at once, shrinks and requeues as drain requests. A reclaim for a job
  // already draining joins its drain. Updates `jobs` with the nodes a grow gave. Returns true
  // when Slurm was changed (the caller polls soon).
  bool apply(const Plan& plan, const Snapshot& snapshot, ElasticJobs& jobs, const Now& now);

  // Completes drains whose nodes are all acked (or run no step) or whose grace is over, and
  // retries failed ones after their backoff. Updates `jobs` with the nodes a shrink kept.
  // Returns true when Slurm was changed.
  bool advance(ElasticJobs& jobs, const Now& now);

  // A regular job now waits for nodes some job is draining for the allocator: the drain's
  // deadline becomes a reclaim's. `reclaim` is nodes_to_reclaim() over the jobs' full nodes.
  void hurry(const std::vector<std::pair<std::string, std::uint32_t>>& reclaim, const Now& now);

  // Keeps every managed job's time limit about one lease ahead: shortened at once when longer
  // (a fresh job or a user limit), renewed when less than half a lease is left. A satellite's
  // is not renewed while a regular job waits for its node (`reclaimed`); a job's own is, also
  // while its nodes are reclaimed (now, or by a drain in flight or failing): the reclaim gives
  // them back, and a lapsed lease would end the job. Never beyond the limit the job was
  // submitted with, nor (renewing) beyond the planned takeover of a node not being reclaimed
  // (`takeovers`, planned_takeovers(): a longer lease would push the backfill plan of the
  // regular job back).
  void keep_leases(const Snapshot& snapshot, const ElasticJobs& jobs,
                   const std::set<std::string>& reclaimed, const Now& now,
                   const std::map<std::string, std::int64_t>& takeovers = {});

  // Works out the notices due now (notice.hpp): the nodes being drained, at their deadline, and
  // those the reclaim will take for a planned regular job (`takeovers`, reclaim_takeovers())
  // within each job's window; journals what was given and withdrawn since the last call.
  void give_notices(const ElasticJobs& jobs, const std::map<std::string, std::int64_t>& takeovers,
                    const Now& now);
  // The notice for `job_id`'s LaunchInstruction: node -> Unix time it will be taken.
  std::map<std::string, double> notice(std::uint32_t job_id) const;
  const Notices& notices() const noexcept { return notices_; }

  // Ends satellites (is_satellite_of, in the elastic partition) whose job no longer runs (it
  // ended or was requeued). Another user's job named after it is left alone. True if it did.
  bool release_orphans(const Snapshot& snapshot);

  // Parks again the admitted jobs Slurm has not started within `admit_start_s` (their nodes
  // were taken, or Slurm refused them): they become admission candidates again instead of
  // waiting for nodes the allocator no longer means for them. True if it parked any.
  bool hold_unstarted_admissions(const Snapshot& snapshot, const Now& now);

  // Forgets what it knows of jobs that are no longer managed.
  void forget_except(const ElasticJobs& jobs, const Snapshot& snapshot);

  // Nodes given back for a regular job that is still pending, within the last few seconds, and
  // nodes an elastic job was admitted onto that Slurm has not started it on yet: not holes to
  // grow into, though Slurm shows them idle until the job starts there (a grow onto one is
  // refused, "Requested nodes are busy", or takes it from the admitted job).
  std::set<std::string> promised(const Snapshot& snapshot, const Now& now) const;

  // Regular jobs that nodes are on their way to: a drain in flight, or promised() nodes.
  std::set<std::uint32_t> served(const Snapshot& snapshot, const Now& now) const;

  // The nodes `job_id` is asked to drain (for its LaunchInstruction).
  std::vector<std::string> draining(std::uint32_t job_id) const;
  // The jobs' nodes as the planner should see them: what each keeps after its drain.
  // The jobs admitted past the head of the queue, each with that head (PlannerSettings).
  const std::map<std::uint32_t, std::uint32_t>& overtook() const noexcept { return overtook_; }
  std::vector<ElasticJob> planning_view(const ElasticJobs& jobs) const;

  // The time limit each managed job was submitted with (minutes, 0: none), for the state file;
  // restore_user_limits() puts them back after a restart, before any lease is kept.
  const std::map<std::uint32_t, std::uint32_t>& user_limits() const noexcept {
    return user_limits_;
  }
  void restore_user_limits(const std::map<std::uint32_t, std::uint32_t>& limits) {
    user_limits_.insert(limits.begin(), limits.end());
  }

  const std::map<std::uint32_t, PendingDrain>& drains() const noexcept { return drains_; }
  const std::map<std::uint32_t, Backoff>& backoffs() const noexcept { return backoffs_; }
  const ActionCounts& counts() const noexcept { return counts_; }
  // How long each reclaim completed since the last call took, drain request to release (s).
  std::vector<double> take_reclaim_latencies() { return std::exchange(reclaim_latencies_, {}); }
  // What it did since the last call, for the journal (notes.hpp).
  Notes take_notes() { return std::exchange(notes_, {}); }
  // The resizes carried out since the last call, with the job each changed (job_history.hpp).
  std::vector<std::pair<std::uint32_t, ResizeRecord>> take_resizes() {
    return std::exchange(resizes_, {});
  }

 private:
  void note(NoteLevel level, std::string_view message, std::initializer_list<NoteField> fields);
  bool busy(std::uint32_t job_id, const Now& now) const;
  bool grow(const Action& action, const Snapshot& snapshot, ElasticJobs& jobs, const Now& now);
  bool admit(const Action& action, const Snapshot& snapshot, const Now& now);
  void request_drain(const Action& action, const ElasticJobs& jobs, const Now& now);
  bool finish_drain(std::uint32_t job_id, const PendingDrain& drain, ElasticJobs& jobs,
                    const Now& now);
  void succeeded(std::uint32_t job_id, std::string_view kind);
  void failed(std::uint32_t job_id, ActionKind kind, std::string_view kind_name,
              const std::string& error, const std::vector<std::string>& nodes, const Now& now);
  std::uint32_t lease_minutes(const Job& job, std::uint32_t user_limit, const Now& now) const;
  std::uint32_t first_lease_minutes() const;
  // The first lease of work started on nodes whose hole ends at `hole_end` (0: unknown).
  std::uint32_t first_lease_minutes(std::int64_t hole_end, const Now& now) const;
  // `until`: the lease may not be renewed past it (epoch s; 0: no bound).
  void keep_lease(const Job& job, std::uint32_t user_limit, bool waited_for, std::int64_t until,
                  const Now& now);

  SlurmActions& slurm_;
  ResizerSettings settings_;
  std::map<std::uint32_t, PendingDrain> drains_;
  std::map<std::uint32_t, Backoff> backoffs_;
  // The time limit each managed job was submitted with (0: none): seen at admission, or when
  // first seen running for a job Slurm started itself, before any lease.
  std::map<std::uint32_t, std::uint32_t> user_limits_;
  std::map<std::uint32_t, double> lease_backoff_until_;
  struct Promise {
    std::uint32_t waiting_job = 0;
    double until = 0.0;  // mono
  };
  // Still promised: not expired, the job still pending, the node not taken by another job.
  static bool promise_holds(const std::string& node, const Promise& promise,
                            const Snapshot& snapshot, const Now& now);
  std::map<std::string, Promise> promises_;  // node -> the regular job it was given back for
  struct Admission {
    double running_by = 0.0;         // mono: when Slurm should have started it
    std::vector<std::string> nodes;  // where it was admitted
  };
  std::map<std::uint32_t, Admission> admitted_;  // admitted, not yet seen running
  // Jobs admitted past the head of the queue, with that head (queue_policy.hpp): kept while
  // the job is listed (requeued for the head, it is kept behind it), replaced at its next
  // admission. In memory only: after a restart they no longer give way to that head.
  std::map<std::uint32_t, std::uint32_t> overtook_;
  ActionCounts counts_;
  Notices notices_;  // given at the last give_notices()
  std::vector<double> reclaim_latencies_;
  Notes notes_;
  std::vector<std::pair<std::uint32_t, ResizeRecord>> resizes_;
};

// The resizer's state for `gaptrain status` ("actions"): drains in flight, jobs backing off
// after a failed Slurm call, and counts of actions done and failed by kind.
//   {"draining":[{"job_id":ID,"action":"shrink","nodes":[...],"keep":[...],"waiting_job":ID|null,
//                 "reason":"...","for_s":S,"deadline_in_s":S}],
//    "retrying":[{"job_id":ID,"action":"grow","error":"...","failures":N,"retry_in_s":S}],
//    "done":{"grow":N,...},"failed":{"shrink":N,...}}
Json::Value actions_json(const Resizer& resizer, double now_mono);

}  // namespace gaptrain::core
