// The elastic jobs gaptrain manages: those that registered (protocol::JobRegistration) while
// running in Slurm, kept in step with Slurm's view and forgotten when they end. Pure.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/cluster.hpp"
#include "core/curve_learner.hpp"
#include "core/elastic_partitions.hpp"
#include "core/noise_scale.hpp"
#include "gaptrain/goodput.hpp"
#include "gaptrain/protocol.hpp"
#include "gaptrain/scaling_curve.hpp"

namespace gaptrain::core {

// The assumed relative curve: what the learner's prior predicts before any measurement (at 1,
// 2, 4, ... max_nodes, and max_nodes itself).
ScalingCurve assumed_curve(int max_nodes);

// Whether a job's scaling curve and rescale costs were given by the user, are the prior the
// allocator assumes, or were learned online from the job's progress (docs/design.md, "The
// allocation model"; MalleTrain).
enum class Source { given, assumed, learned };

std::string_view to_string(Source source);

// The noise scale a job with a batch range is valued at, and where it comes from: given, else
// learned, else assumed to be its tuned batch M0 (efficiency 2 / (1 + M/M0): cautious).
struct NoiseScale {
  double value = 0.0;
  Source source = Source::assumed;
};

// The prior for jobs registered without a curve or costs is the learner's (curve_learner.hpp,
// LearnerPrior): S(n) = n^alpha relative to one node, and its rescale costs.

// What a poll showed that gaptraind did not do itself.
struct Refreshed {
  std::vector<std::uint32_t> forgotten;  // registered jobs that no longer run
  // job -> the nodes of its satellites Slurm preempted since the last poll (batch host first
  // order of the job's nodes is kept for the rest).
  std::map<std::uint32_t, std::vector<std::string>> preempted;
};

// A job's curve on one node type: given at registration, or learned there.
struct TypeCurve {
  Source source = Source::assumed;
  ScalingCurve curve = assumed_curve(1);
  // Learns the curve from the progress made on this type (only when it was not given).
  std::optional<CurveLearner> learner;
};

struct ElasticJob {
  std::uint32_t job_id = 0;
  // What the job registered with (its --elastic options), as accepted: its user and batch host
  // as Slurm showed them then. The bounds, sizes, types, notice and batch range are read from
  // here; what gaptraind learned in place of what it left out, and what Slurm shows now, below.
  protocol::JobRegistration given;
  uid_t uid = 0;
  // From Slurm, refreshed at every poll: the job's own nodes (batch host first), then those of
  // its satellites (cluster.hpp satellite_name: the nodes it grew into).
  std::vector<std::string> nodes;
  std::map<std::string, std::uint32_t> satellites;  // node -> satellite job id
  std::string batch_host;                           // from Slurm
  // Its batch script runs on a home node (home.hpp): `nodes` are all satellites, and with none
  // left it is paused, never requeued.
  bool at_home = false;
  Source curve_source = Source::assumed;
  // Assumed curves are relative: samples/s per one-node rate.
  ScalingCurve curve = assumed_curve(1);
  // Node types: the types it runs on, each with its curve (`curve` is then unused): those it
  // registered (given.curves) and, for a job that named types only in its --constraint, those
  // it learns a curve on. Empty: it runs on every type, with `curve` on each.
  std::map<std::string, TypeCurve> curves;
  // The type of the nodes it holds (cluster.hpp Node::type), from the last poll; "" untyped.
  std::string held_type;
  Source costs_source = Source::assumed;
  double up_cost_s = LearnerPrior{}.up_cost_s;
  double down_cost_s = LearnerPrior{}.down_cost_s;
  std::int64_t registered_at = 0;
  // Learned from the launcher's grad_sqr/grad_var (empty until a report carries them).
  NoiseScaleLearner noise_learner;
  std::optional<double> learned_noise_scale;
  // From the job's launcher (protocol::LauncherReport), empty until it first reports.
  std::optional<double> samples_done;  // the last value the training reported
  double samples_taken_mono_s = 0.0;   // when samples_done was taken (monotonic s)
  // Reports whose samples_done was refused: it went back, or grew faster than the job's nodes
  // can train (bounds::kMaxSamplesPerNodePerS). Not progress: neither kept nor learned from.
  std::uint64_t progress_refused = 0;
  std::optional<std::int64_t> reported_at;  // when the launcher last reported
  std::vector<std::string> running;         // nodes with a live step, as last reported
  std::vector<std::string> drained;         // the drain acks of the last report

  // Online learning of what was assumed (curve, costs) from the reported progress, as the
  // simulator's --learn (MalleTrain): rates over steady windows (every node runs a step, the
  // node count unchanged), rescale costs as the stall from a resize to the next progress.
  std::optional<CurveLearner> learner;
  // Durations are measured on the monotonic clock (seconds): a wall clock stepped by NTP or an
  // admin would make a window negative or hours long.
  struct Window {
    double samples = 0.0;
    double since_mono_s = 0.0;
    std::size_t nodes = 0;
  };
  std::optional<Window> window;                // the steady window being measured
  std::optional<double> stalled_since_mono_s;  // a resize whose stall is being measured
  bool stalled_by_grow = false;
  double samples_at_resize = 0.0;
};

// Empty for a job without a batch range.
std::optional<NoiseScale> noise_scale_of(const ElasticJob& job);

// The node the allocator never takes from a job: its batch host (losing it is a requeue), or at
// home its first node (so that only a regular job pauses it). Empty for a job at home with none.
std::string anchor_of(const ElasticJob& job);

class ElasticJobs {
 public:
  // Registers (or re-registers: a restarted batch step) `request` for `job`, the job as Slurm
  // sees it (nullptr: unknown). Empty on success; otherwise why it was refused (job not
  // running, not in one of `elastic_partitions`, bad node bounds or curve). Authorization is
  // auth.hpp's business, not this. A max_nodes beyond the cluster is kept as asked: the allocator
  // reads it as "all nodes".
  //
  // Registering a job again (the launcher does after gaptraind refused its report, a restarted
  // batch step does) is harmless: what is known of it from Slurm and its launcher (its nodes and
  // satellites, its progress) and what was learned of it (curve, costs, noise scale) stay; the
  // registration's own terms (range, sizes, notice, given curve and costs) are taken anew.
  std::optional<std::string> add(const protocol::JobRegistration& request, const Job* job,
                                 const ElasticPartitions& elastic_partitions, std::int64_t now);

  // As above, the job as `snapshot` shows it; a job not registered before gets the satellites
  // it holds there (is_satellite_of) as its nodes at once: after gaptraind restarted without
  // its state, its launcher must not be told that its satellites are no longer its own.
  std::optional<std::string> add(const protocol::JobRegistration& request, const Snapshot& snapshot,
                                 const ElasticPartitions& elastic_partitions, std::int64_t now,
                                 std::string_view satellite_partition = {});

  // Records a launcher's report for a registered job; false when the job is not registered.
  // A report without samples_done keeps the last known value (the progress file may not be
  // written yet after a step restart). A samples_done below the last one, or beyond what the
  // job's nodes could have trained since it (a second of slack), is refused: the last value is
  // kept and progress_refused counts it. What was assumed of the job is learned from it, over
  // durations on the monotonic clock `mono_s`; `now` (epoch s) is when it was last heard of.
  bool report(const protocol::LauncherReport& report, std::int64_t now, double mono_s);

  // Follows Slurm: refreshes nodes and batch host (and satellites: is_satellite_of), forgets
  // jobs that no longer run. A satellite Slurm preempted (satellite_qos) is a reclaim gaptraind
  // did not have to make: the job's stall from then on is learned as a shrink's, at `mono_s`.
  // Satellites are in their job's partition or in `satellite_partition` ("" for none).
  Refreshed refresh(const Snapshot& snapshot, double mono_s,
                    std::string_view satellite_partition = {});

  // Records what a resize left the job with, ahead of the next poll (so that the launcher is
  // not told of nodes it just gave back): its nodes, and its satellites among them. Unknown
  // jobs are ignored. `mono_s`: the monotonic clock, from which the stall is measured.
  void resized(std::uint32_t job_id, std::vector<std::string> nodes,
               std::map<std::string, std::uint32_t> satellites, double mono_s);

  // After a restart, for a job add()ed again from the state file (state_file.hpp): what had
  // been learned of it replaces the assumptions again (the learner itself starts over from its
  // prior, and refines them from the next reports). Unknown jobs are ignored.
  void restore_learned(std::uint32_t job_id, const std::optional<ScalingCurve>& curve,
                       const std::optional<std::pair<double, double>>& costs,
                       const std::optional<double>& noise_scale = std::nullopt);

  const std::map<std::uint32_t, ElasticJob>& jobs() const noexcept { return jobs_; }
  bool contains(std::uint32_t job_id) const { return jobs_.contains(job_id); }

 private:
  // Why `request` asks for more than job `job` was submitted or first registered with; empty
  // when it does not.
  std::optional<std::string> outside_submitted_range(const protocol::JobRegistration& request,
                                                     const Job& job) const;
  std::map<std::uint32_t, ElasticJob> jobs_;
};

}  // namespace gaptrain::core
