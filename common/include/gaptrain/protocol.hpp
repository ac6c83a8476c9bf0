// The messages the SPANK plugin (and `gaptrain status`) send to gaptraind: a small versioned
// JSON protocol, one request per TCP connection, sealed in a munge credential so the daemon
// knows the sender's uid (docs/protocol.md). Pure: encoding and decoding only.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "gaptrain/bounds.hpp"
#include "gaptrain/goodput.hpp"
#include "gaptrain/scaling_curve.hpp"

namespace gaptrain::protocol {

inline constexpr int kVersion = 1;

// The longest notice a job may ask for: a day. Plans further ahead are guesses.
inline constexpr double kMaxNoticeS = 86400.0;

// The largest global batch a job may declare (--elastic-batch): a billion samples a step.
inline constexpr int kMaxBatchSize = bounds::kMaxBatch;
// The largest noise scale (samples at the tuned batch) a job may give or gaptraind learns.
inline constexpr double kMaxNoiseScale = 1e15;

// Why `range` is no batch range a job may declare (1 <= tuned <= max <= kMaxBatchSize,
// 0 <= max_per_node <= kMaxBatchSize), in words for the user; empty when it is one.
std::optional<std::string> batch_range_problem(const BatchRange& range);
// The options' text form M0:MAX[:PERNODE] (sbatch --elastic-batch, gaptrain submit --batch):
// whole numbers written with digits alone, PERNODE >= 1 when given. Empty when `text` is not of
// that form; batch_range_problem() then checks the values.
std::optional<BatchRange> batch_range_from_text(std::string_view text);
// Why `phi` is no noise scale (a finite number from 0 to kMaxNoiseScale); empty when it is one.
std::optional<std::string> noise_scale_problem(double phi);

// From a job's epilog: the job released `node` (a hole may open).
struct NodeFreed {
  static constexpr std::string_view kType = "node_freed";  // the wire name
  std::uint32_t job_id = 0;
  std::string node;
};

// From a job's prolog: `node` now belongs to job `job_id` (a reclaim when it was a hole).
struct NodeTaken {
  static constexpr std::string_view kType = "node_taken";
  std::uint32_t job_id = 0;
  std::string node;
  bool elastic = false;  // the job opted in with --elastic
};

// From an elastic job's batch step: the job asks to be managed.
struct JobRegistration {
  static constexpr std::string_view kType = "register";
  std::uint32_t job_id = 0;
  std::string user;
  std::string batch_host;
  int min_nodes = 1;
  int max_nodes = 1;
  // The only node counts it runs on, from min_nodes to max_nodes (--elastic=2-8:2 or 2,4,8;
  // gaptrain/node_sizes.hpp); empty: every count between them.
  std::vector<int> allowed_sizes;
  std::optional<ScalingCurve> curve;  // empty: learn it online
  // Node types: the types it runs on, each with its curve (empty: learned on that
  // type). Empty map: every type, `curve` on each. Never both a curve and curves.
  std::map<std::string, std::optional<ScalingCurve>> curves;
  // It may hold nodes of several types at once, at `curve` on any mix (--elastic-mix-types);
  // never with `curves`.
  bool mix_types = false;
  std::optional<double> up_cost_s;  // empty: learn it online
  std::optional<double> down_cost_s;
  // How many seconds before a node is taken the job wants to be told (sbatch --elastic-notice,
  // at most kMaxNoticeS); empty: gaptraind's default. The daemon caps it (max_notice_s).
  std::optional<double> notice_s;
  // The batch sizes it may train at (--elastic-batch; goodput): with it the allocator
  // values the job at its goodput and each LaunchInstruction carries the batch to train at.
  std::optional<BatchRange> batch;
  // Its gradient noise scale in samples at the tuned batch (--elastic-noise-scale); empty: learned
  // from the launcher's grad_sqr/grad_var, the tuned batch until then.
  std::optional<double> noise_scale;

  friend bool operator==(const JobRegistration&, const JobRegistration&) = default;
};

// From `gaptrain status`: the daemon's view of holes and elastic jobs.
struct StatusRequest {
  static constexpr std::string_view kType = "status";
};

// From `gaptrain job ID`: one job's history (what gaptraind did to it, its progress, its curve).
struct JobRequest {
  static constexpr std::string_view kType = "job";
  std::uint32_t job_id = 0;

  friend bool operator==(const JobRequest&, const JobRequest&) = default;
};

// From `gaptrain pause|resume|drain` (admins only): "pause", "resume" or "drain".
struct OperationRequest {
  static constexpr std::string_view kType = "operation";
  std::string operation;

  friend bool operator==(const OperationRequest&, const OperationRequest&) = default;
};

// From gaptrain-launch, the elastic job's main program, every poll: what it runs and what the
// training has done. The daemon answers with a LaunchInstruction.
struct LauncherReport {
  static constexpr std::string_view kType = "launcher";
  std::uint32_t job_id = 0;
  std::vector<std::string> running;    // nodes with a live training step
  std::vector<std::string> drained;    // nodes whose step it stopped on request (the acks)
  std::optional<double> samples_done;  // cumulative, as the training reported it; empty: none
  // When the training wrote that progress (Unix seconds, its progress line's "time"); empty:
  // the line carried none and the daemon takes the report's arrival. Resize stalls are read
  // from these times, finer than the launcher's poll.
  std::optional<double> progress_time;
  // The training's own world size (its progress line's "world_size"): below the nodes running
  // a step, some of them hold nodes the training does not use.
  std::optional<int> world_size;
  // The training's smoothed gradient statistics, normalised to the tuned batch (its progress
  // line's "grad_sqr", "grad_var", as AdaptDL's GradientNoiseScale): gaptraind learns the noise
  // scale M0 * grad_var / grad_sqr from them. Empty: the line carried none.
  std::optional<double> grad_sqr;
  std::optional<double> grad_var;
};

// Every request, the one list of them: encode(), decode() and type_name() follow it and each
// type's kType, its name on the wire.
using Request = std::variant<NodeFreed, NodeTaken, JobRegistration, StatusRequest, LauncherReport,
                             JobRequest, OperationRequest>;

// The batch a job with a batch range trains at on its current nodes (goodput.hpp choose_batch):
// global = nodes * per_node * accumulation; lr_gain: AdaScale's learning-rate gain there; tuned:
// the job's M0 (the helper scales by global / tuned on request, and normalises its gradient
// statistics to it).
struct InstructedBatch {
  int tuned = 1;
  long global = 0;
  int per_node = 0;
  int accumulation = 1;
  double lr_gain = 1.0;

  friend bool operator==(const InstructedBatch&, const InstructedBatch&) = default;
};

// The daemon's answer to a LauncherReport: the job's nodes as Slurm has them now (batch host
// first), and those of them to drain (stop the step, then ack in `drained`) before a shrink.
struct LaunchInstruction {
  std::vector<std::string> nodes;
  std::vector<std::string> drain;
  // Nodes held for the job by a satellite allocation (the job's grows), with its job id: their
  // steps run in that allocation (srun --jobid). Nodes not listed belong to the job itself.
  std::map<std::string, std::uint32_t> allocations;
  // Notice: nodes of `nodes` that will be taken from the job at about the given Unix time (s),
  // e.g. for a regular job the backfill plan starts there. The job is told (signal, job file)
  // so it can checkpoint or regroup without them before its drain request arrives.
  std::map<std::string, double> notice;
  // For a job with a batch range: the batch to train at on the nodes it keeps (those of `nodes`
  // not in `drain`). Empty for a job without one.
  std::optional<InstructedBatch> batch;
  // The job's batch script runs on a home node that never trains (the home mode): `nodes` are
  // all satellites, and may be none (the job is paused: its launcher waits for nodes).
  bool home = false;
};

// The reply line {"ok":true,"launch":{"nodes":[...],"drain":[...],"allocations":{"n3":42,...}}}.
std::string encode_reply(const LaunchInstruction& instruction);
// Throws gaptrain::InputError naming the field when `json` is not such a reply; a reply
// {"ok":false,"error":"..."} is an InputError too, carrying the daemon's error text.
LaunchInstruction decode_launch_reply(std::string_view json);

// One line of JSON: {"v":1,"type":KTYPE,...}, KTYPE the request type's kType.
std::string encode(const Request& request);

// Throws gaptrain::InputError naming the field when `json` is not a valid request of version
// kVersion (unknown type or key, wrong type, missing field).
Request decode(std::string_view json);

// The request's kType, its name on the wire ("node_freed", ...), for logs.
std::string_view type_name(const Request& request);

}  // namespace gaptrain::protocol
