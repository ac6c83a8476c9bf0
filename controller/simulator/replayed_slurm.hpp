// Slurm as the replay sees it: the decision core's two ports (core/slurm_queries.hpp,
// core/slurm_actions.hpp) over a cluster whose regular workload follows a hole trace
// (docs/simulator.md, "The simulated Slurm"). gaptrain simulate drives the core through it as
// gaptraind drives the core through libslurm, so the policy measured is the policy shipped.
//
// What it answers (poll): every node (allocated while the regular workload or an elastic job
// holds it; idle, or PLANNED when the trace's scheduler plan names its end), the elastic jobs
// (held pending ones waiting for admission, running ones, and their satellites), and the
// regular workload's pending jobs:
//  - the plan: for each predicted hole end, one job backfill plans on those nodes at that time.
//    It asks for more nodes than the cluster's free and elastic ones, for it also waits for
//    nodes regular jobs hold until then: nothing gaptrain gives back starts it sooner;
//  - a node the trace hands back to the regular workload while an elastic job holds it: a job
//    that can run only there (its own one-node partition, as `-w NODE` would), waiting for it;
//    with Placement::slurm one that can run on any node (of the node's type, on a cluster with
//    types: a partition of that type's nodes, as its --constraint would say).
//    It starts the moment the node is let go; how long it waited is the harm done.
// What it does (the actions): grows take idle hole nodes as one-node satellites (of the type
// their constraint asks for, if any), shrinks and releases let nodes go, admissions start a
// held job on its nodes, requeues put a job back in the queue, held, keeping its progress (its
// checkpoint). A node that is not idle is refused,
// as slurmctld refuses it.
// The home mode (ElasticSetup::home_partition, core/home.hpp): an admission moves the job to a
// home node of unbounded capacity, outside the trace, where it holds no training node; it trains
// on satellites only, and with none left it is paused (running at home, holding nothing).
// Satellites in a preemptable QOS (ElasticSetup::preemptable_qos) are Slurm's to cancel: a
// regular job that needs one's node gets it at once, and the satellite is listed PREEMPTED. Time
// limits are recorded, not enforced: gaptraind renews leases at every poll and the replay polls
// only when something happens (docs/simulator.md).
//
// Times: the replay's seconds `t` are Slurm's epoch seconds epoch + t (kEpoch unless given: a
// test that runs the real daemon against it gives the wall clock's start).
#pragma once

#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/cluster.hpp"
#include "core/slurm_actions.hpp"
#include "core/slurm_queries.hpp"
#include "simulator/trace.hpp"

namespace gaptrain::sim {

// Where a regular job runs that the trace starts on a node an elastic job holds.
enum class Placement {
  // On the very node the trace names, once the elastic job there lets go: BFTrainer's setting,
  // beside a scheduler that knows nothing of the training (its replays take a node back from
  // whichever job holds it).
  trace,
  // Where Slurm would start it: the trace's node identities are the schedule of a machine
  // without gaptrain, and with elastic jobs allocated there, Slurm starts a regular job on idle
  // nodes. So it runs on an idle hole node when there is one (the two nodes swap their places
  // in the trace from then on), else it waits for the first node an elastic job lets go. Either
  // way on a node of the type the trace ran it on, as a job asking for that kind.
  slurm,
};

// What the site set up for elastic jobs besides their partition (docs/admin.md): gaptraind.json's
// home_partition and satellite_qos.
struct ElasticSetup {
  // The partition of the home node where admitted jobs' batch scripts run; "": none (today's
  // mode, the batch script on the job's first node).
  std::string home_partition = {};
  // A QOS the regular workload's QOS preempts (PreemptMode=CANCEL, GraceTime 0): a satellite in
  // it is cancelled the moment a regular job needs its node. "": satellites wait for gaptraind.
  std::string preemptable_qos = {};
};

class ReplayedSlurm final : public core::SlurmQueries, public core::SlurmActions {
 public:
  static constexpr std::int64_t kEpoch = 1'000'000'000;

  // The first `node_count` nodes of `trace` (all busy until the trace frees them), in partition
  // "regular" and in `elastic_partition`, where the elastic jobs run. Each node has the trace's
  // type, which a poll reports (as a feature, Node::type_source) unless `report_types` is false
  // (a site that told gaptraind no types); placement keeps to the types either way.
  // With `setup.home_partition`, that partition holds one more node (not the trace's, never a
  // hole), shared by every job at home.
  ReplayedSlurm(const HoleTrace& trace, int node_count, std::string elastic_partition,
                std::int64_t epoch = kEpoch, Placement placement = Placement::trace,
                bool report_types = true, ElasticSetup setup = {});

  std::int64_t epoch() const { return epoch_; }
  // Slurm's time (epoch seconds) at replay second `t`.
  std::int64_t wall_at(double t) const { return epoch_ + static_cast<std::int64_t>(std::floor(t)); }

  void set_time(double t) { now_s_ = t; }
  double time() const { return now_s_; }

  // --- The regular workload (the trace) ---------------------------------------------------
  // `trace_node` is a node index of the trace; the node it is on now is placed(trace_node)
  // (itself, unless Placement::slurm moved a regular job elsewhere). The other calls take the
  // nodes Slurm shows.
  int placed(int trace_node) const { return placed_[static_cast<std::size_t>(trace_node)]; }
  // The node is left free by the regular workload from now on: a hole, with the plan's
  // predicted end (absolute trace seconds; kUnknownEnd: no plan). For a node free already,
  // only the plan changes. Returns the predicted end the node had before (kUnknownEnd also when
  // it was no hole).
  double free_node(int trace_node, double predicted_end_s);
  std::optional<int> index_of(const std::string& name) const;
  // The regular workload takes the node: at once when no elastic job holds it, else as soon
  // as it is let go (Placement::slurm: an idle node instead, or the first one let go). False
  // when the node was not a hole.
  bool take_node(int trace_node);

  // --- The elastic jobs' users -------------------------------------------------------------
  // A held pending job in the elastic partition (sbatch --hold -N MIN-MAX); returns its id.
  std::uint32_t submit_elastic(const std::string& name, int min_nodes, int max_nodes);
  // The job's training finished: it ends, its own nodes are free. Its satellites are left to
  // gaptraind, which releases them as it does in Slurm: the ended job stays listed for
  // MinJobAge (slurmctld's default, 300 s), and a satellite outliving its owner ends at its
  // time limit at the latest.
  void end_elastic(std::uint32_t job_id);

  // --- Ports ---------------------------------------------------------------------------------
  Result poll(core::Snapshot& snapshot, std::int64_t now, bool full) override;
  Result load_config(Config& config) override;
  core::ActionResult shrink(const core::ShrinkRequest& request) override;
  core::GrowResult grow(const core::GrowRequest& request) override;
  core::ActionResult release(const std::vector<std::uint32_t>& satellite_ids) override;
  core::ActionResult set_time_limit(std::uint32_t job_id, std::uint32_t minutes) override;
  core::ActionResult admit(const core::AdmitRequest& request) override;
  core::ActionResult requeue(std::uint32_t job_id) override;
  core::ActionResult park(std::uint32_t job_id) override;

  // --- What the replay measures --------------------------------------------------------------
  int node_count() const { return static_cast<int>(nodes_.size()); }
  const std::string& node_name(int node) const { return names_[static_cast<std::size_t>(node)]; }
  // The node's type; "" untyped.
  const std::string& node_type(int node) const { return types_[static_cast<std::size_t>(node)]; }
  // Nodes the regular workload leaves free (holes), and of those, held by elastic jobs.
  int hole_nodes() const { return hole_nodes_; }
  int held_hole_nodes() const { return held_hole_nodes_; }
  // Regular jobs waiting for a node an elastic job holds, now.
  int regular_waiting() const { return waiting_; }
  // The waits that ended so far (s each): a regular job started late on a node given back.
  const std::vector<double>& regular_waits() const { return regular_waits_; }
  // Nodes the regular workload took from elastic jobs so far: each a wait begun or a satellite
  // preempted.
  long long reclaims() const { return reclaims_; }
  // Of those, the satellites Slurm preempted (the regular job started at once).
  long long preemptions() const { return preemptions_; }
  // Jobs requeued so far (each requeue: a job that lost its batch host or fell below its
  // minimum, back in the queue), and jobs at home left with no node (paused) so far.
  long long requeues() const { return requeues_; }
  long long pauses() const { return pauses_; }
  // The home node's name ("" without the home mode).
  const std::string& home_node() const { return home_node_; }
  // The nodes a job (own nodes, batch host first, then its satellites') holds; empty when it
  // does not run. A job at home: its satellites' (the home node trains nothing).
  std::vector<int> nodes_of(std::uint32_t job_id) const;
  bool running(std::uint32_t job_id) const;
  // Whether the regular workload leaves the node free (a hole; held by an elastic job or not).
  bool is_hole(int node) const { return nodes_[static_cast<std::size_t>(node)].hole; }
  // Free for elastic work: a hole no job holds and no regular job waits for.
  bool idle(int node) const;
  // The job as a snapshot shows it (for registration); nullopt when unknown or ended.
  std::optional<core::Job> job(std::uint32_t job_id) const;

 private:
  struct Node {
    bool hole = false;  // the regular workload leaves it free
    double predicted_end_s = kUnknownEnd;
    double idle_since_s = 0.0;
    std::uint32_t holder = 0;  // the elastic job or satellite on it; 0: none
    bool wanted = false;       // a regular job waits for it (the hole ended while held)
    double wanted_since_s = 0.0;
  };
  enum class Phase { held, running, ended };
  struct JobRecord {
    std::string name;
    int min_nodes = 1;
    int max_nodes = 1;
    Phase phase = Phase::held;
    bool requeued = false;
    bool at_home = false;    // admitted to the home partition: its batch script on the home node
    std::vector<int> nodes;  // own nodes, batch host first (none at home)
    std::int64_t start_time = 0;
    std::int64_t end_time = 0;  // ended: when
    std::uint32_t time_limit_minutes = 0;
    std::string admin_comment;  // as an admission wrote it (core/job_mark.hpp)
  };
  struct Satellite {
    std::uint32_t owner = 0;
    int node = 0;
    std::int64_t start_time = 0;
    std::uint32_t time_limit_minutes = 0;
    std::string qos;
    std::string partition;  // as the grow asked (satellite_partition), else the elastic one
    // Slurm cancelled it for a regular job (preemptable_qos): listed as ended PREEMPTED for
    // MinJobAge, holding nothing.
    bool preempted = false;
    std::int64_t end_time = 0;
  };

  std::int64_t wall() const;
  // Ended jobs older than MinJobAge are forgotten; satellites of a job that no longer runs end
  // at their time limit.
  void expire();
  Node& at(int node) { return nodes_[static_cast<std::size_t>(node)]; }
  void hold(int node, std::uint32_t holder);
  // The holder lets the node go: a regular job waiting for it starts there.
  void let_go(int node);
  // The regular job waiting for `n` stops waiting (it starts there, or the trace moved on).
  void end_wait(Node& n);
  // Placement::slurm: the two nodes exchange their places in the trace (hole or not, the plan,
  // a regular job waiting); what Slurm knows of each (holder, last busy) stays.
  void swap_places(int a, int b);
  // Placement::slurm: the node of `type` a regular job has waited for longest; -1 when none
  // waits. A regular job runs on the type of node the trace ran it on (it asked for that kind).
  int longest_waiting(const std::string& type) const;
  // Placement::slurm: a hole `node` just became free to: the regular job that waits longest
  // starts there instead.
  void serve_waiting(int node);
  // Whether the node's holder is a satellite Slurm may preempt for a regular job.
  bool preemptable(int node) const;
  // Placement::slurm: a node of `type` held by a preemptable satellite; -1 when none.
  int preemptable_of_type(const std::string& type) const;
  // Slurm cancels the preemptable satellite on `node`, which the regular workload takes.
  void preempt(int node);
  // Counts a pause when `owner` is a job at home that holds no node any more.
  void count_pause_of(std::uint32_t owner);
  core::Job satellite_view(std::uint32_t id, const Satellite& satellite) const;
  core::Job job_view(std::uint32_t id, const JobRecord& job) const;
  core::ActionResult refuse(const std::string& what) const;
  // admit() with AdmitRequest::home_partition: the job starts on the home node.
  core::ActionResult admit_home(JobRecord& job, const core::AdmitRequest& request);

  std::string elastic_partition_;
  ElasticSetup setup_;
  std::string home_node_;  // in setup_.home_partition; "" without the home mode
  std::int64_t epoch_ = kEpoch;
  Placement placement_ = Placement::trace;
  std::vector<int> placed_;    // trace node -> the node it is on
  std::vector<int> trace_of_;  // node -> the trace node on it
  std::vector<std::string> names_;
  std::vector<std::string> types_;  // by node, "" untyped
  // Type -> its nodes' names, when the trace gives types (empty when it does not).
  std::map<std::string, std::vector<std::string>> nodes_of_type_;
  bool report_types_ = true;
  std::map<std::string, int> index_;
  std::vector<Node> nodes_;
  std::map<std::uint32_t, JobRecord> jobs_;
  std::map<std::uint32_t, Satellite> satellites_;
  std::uint32_t next_id_ = 1;
  double now_s_ = 0.0;
  int hole_nodes_ = 0;
  int held_hole_nodes_ = 0;
  int waiting_ = 0;
  std::vector<double> regular_waits_;
  long long reclaims_ = 0;
  long long preemptions_ = 0;
  long long requeues_ = 0;
  long long pauses_ = 0;
};

}  // namespace gaptrain::sim
