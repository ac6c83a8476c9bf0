#include "core/elastic_jobs.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <string_view>
#include <utility>
#include <vector>

#include "core/job_mark.hpp"
#include "gaptrain/bounds.hpp"
#include "gaptrain/input_error.hpp"
#include "gaptrain/scaling_curve.hpp"

namespace gaptrain::core {

namespace {

std::optional<std::string> check_cost(const std::optional<double>& cost, const char* name) {
  if (cost && (!std::isfinite(*cost) || *cost < 0.0)) {
    return std::string(name) + " must be a finite number of seconds >= 0";
  }
  return std::nullopt;
}

// The job's own nodes, batch host first (the launcher's rendezvous host).
std::vector<std::string> batch_host_first(const Job& job, const std::string& batch_host) {
  std::vector<std::string> nodes;
  if (std::find(job.nodes.begin(), job.nodes.end(), batch_host) != job.nodes.end()) {
    nodes.push_back(batch_host);
  }
  for (const std::string& node : job.nodes) {
    if (node != batch_host) nodes.push_back(node);
  }
  return nodes;
}

// Steady progress is measured over windows at least this long (reports come every ~0.5 s with
// whole-second timestamps, and a training logs its progress every few steps).
constexpr double kLearnWindowS = 10.0;

// The learner's current answer replaces what was assumed. Only a positive 1-node rate counts as
// learned (curve_learner.hpp): until progress is seen the prior stays.
void apply_learned(ElasticJob& job) {
  if (!job.learner) return;
  if (job.curve_source != Source::given && job.learner->one_node_rate()) {
    job.curve_source = Source::learned;
    job.curve = job.learner->curve(1.0);
  }
  for (auto& [type, typed] : job.curves) {
    if (typed.learner && typed.learner->one_node_rate()) {
      typed.source = Source::learned;
      typed.curve = typed.learner->curve(1.0);
    } else if (typed.learner && job.curve_source == Source::learned) {
      // Not run on yet: as fast as where it ran (the same scale as the learned types' curves).
      typed.curve = job.curve;
    }
  }
  if (job.costs_source != Source::given && job.learner->rescales_measured() > 0) {
    job.costs_source = Source::learned;
    job.up_cost_s = job.learner->up_cost_s();
    job.down_cost_s = job.learner->down_cost_s();
  }
}

// A job that gave no curve and asked Slurm for node types (--constraint="[a100|v100]") learns a
// curve on each of them, from when it first runs on a typed node: its progress there
// is that type's, and the allocator weighs the types by what was learned.
void learn_per_type(ElasticJob& elastic, const Job& job, const Snapshot& snapshot) {
  if (!elastic.curves.empty() || elastic.curve_source == Source::given || !elastic.learner ||
      elastic.held_type.empty() || elastic.given.mix_types) {
    return;
  }
  std::vector<std::string> types = types_in_constraint(job.features, snapshot);
  if (types.empty()) return;
  if (std::ranges::find(types, elastic.held_type) == types.end())
    types.push_back(elastic.held_type);
  for (const std::string& type : types) {
    TypeCurve& typed = elastic.curves[type];
    typed.curve = elastic.curve;
    typed.learner.emplace(elastic.given.max_nodes, LearnerPrior{});
  }
}

// The nodes the progress was made on: the training's own world size when it says (the launcher
// may run steps on nodes the training does not use yet, or no longer), else the job's nodes.
// Progress at 1 node's rate counted as 4 nodes' once made the 4-node rate look better than it
// was, and the 1-node rate was never learned.
std::size_t training_nodes(const ElasticJob& job, std::optional<int> world_size) {
  if (world_size && *world_size >= 1 && static_cast<std::size_t>(*world_size) <= job.nodes.size()) {
    return static_cast<std::size_t>(*world_size);
  }
  return job.nodes.size();
}

void learn(ElasticJob& job, double samples, std::optional<int> world_size, double mono_s) {
  if (!job.learner) return;
  if (job.stalled_since_mono_s) {
    if (samples <= job.samples_at_resize) return;  // still stalled
    job.learner->observe_rescale(job.stalled_by_grow, mono_s - *job.stalled_since_mono_s);
    job.stalled_since_mono_s.reset();
    job.window.reset();
    apply_learned(job);
  }
  const std::set<std::string> running(job.running.begin(), job.running.end());
  const bool steady = running == std::set<std::string>(job.nodes.begin(), job.nodes.end());
  if (!steady) {
    job.window.reset();
    return;
  }
  const std::size_t nodes_used = training_nodes(job, world_size);
  if (!job.window || job.window->nodes != nodes_used || samples < job.window->samples) {
    job.window = ElasticJob::Window{samples, mono_s, nodes_used};
    return;
  }
  const double seconds = mono_s - job.window->since_mono_s;
  if (seconds < kLearnWindowS) return;
  const double done = samples - job.window->samples;
  // Faster than any node can go (a report that jumped): no measurement, nothing learned.
  const double nodes = static_cast<double>(nodes_used);
  if (done > nodes * bounds::kMaxSamplesPerNodePerS * seconds) {
    job.window = ElasticJob::Window{samples, mono_s, nodes_used};
    return;
  }
  job.learner->observe_progress(static_cast<int>(nodes_used), done, seconds);
  // On a node type whose curve is not given, the rate is that type's.
  if (const auto typed = job.curves.find(job.held_type);
      typed != job.curves.end() && typed->second.learner) {
    typed->second.learner->observe_progress(static_cast<int>(nodes_used), done, seconds);
  }
  job.window = ElasticJob::Window{samples, mono_s, nodes_used};
  apply_learned(job);
}

// A samples_done that follows the last one taken: not below it, and not beyond what the job's
// nodes could train since (a billion samples a node and second, a second of slack for a report
// late in the poll). A launcher of another user's, a fake progress file or a training whose
// count restarted would otherwise be learned from and shown as the job's.
bool plausible_progress(const ElasticJob& job, double samples, double mono_s) {
  if (!job.samples_done) return true;
  if (samples < *job.samples_done) return false;
  const double nodes = static_cast<double>(std::max<std::size_t>(1, job.nodes.size()));
  const double seconds = std::max(0.0, mono_s - job.samples_taken_mono_s) + 1.0;
  return samples - *job.samples_done <= nodes * bounds::kMaxSamplesPerNodePerS * seconds;
}

// The satellites `job` holds in `snapshot` become `elastic`'s, their nodes after its own.
void collect_satellites(ElasticJob& elastic, const Job& job, const Snapshot& snapshot,
                        std::string_view satellite_partition) {
  elastic.satellites.clear();
  for (const Job& satellite : snapshot.jobs) {
    if (!holds_nodes(satellite) || !is_satellite_of(satellite, job, satellite_partition)) {
      continue;
    }
    for (const std::string& node : satellite.nodes) {
      elastic.satellites[node] = satellite.id;
      elastic.nodes.push_back(node);
    }
  }
}

// A registration of a job already registered: `fresh` holds the new registration's terms, `known`
// what gaptraind knew of the job. Its nodes (a resize recorded ahead of the next poll among
// them), its launcher's reports and what was learned are kept: a registration is no news about
// where the job runs, and told the launcher nothing but its batch host's node until the next
// poll, which stopped the training on every satellite. A curve or costs the new registration
// gives replace what was learned; a learner is kept while the range it learns over is the same.
void keep_what_is_known(ElasticJob& fresh, ElasticJob known) {
  fresh.nodes = std::move(known.nodes);
  fresh.satellites = std::move(known.satellites);
  fresh.batch_host = std::move(known.batch_host);
  fresh.held_type = std::move(known.held_type);
  fresh.registered_at = known.registered_at;
  fresh.samples_done = known.samples_done;
  fresh.samples_taken_mono_s = known.samples_taken_mono_s;
  fresh.progress_refused = known.progress_refused;
  fresh.reported_at = known.reported_at;
  fresh.running = std::move(known.running);
  fresh.drained = std::move(known.drained);
  fresh.window = known.window;
  fresh.stalled_since_mono_s = known.stalled_since_mono_s;
  fresh.stalled_by_grow = known.stalled_by_grow;
  fresh.samples_at_resize = known.samples_at_resize;
  if (fresh.given.batch) {
    fresh.noise_learner = std::move(known.noise_learner);
    fresh.learned_noise_scale = known.learned_noise_scale;
  }
  const bool same_range = fresh.given.max_nodes == known.given.max_nodes;
  if (fresh.curve_source != Source::given) {
    if (known.curve_source == Source::learned) {
      fresh.curve = std::move(known.curve);
      fresh.curve_source = Source::learned;
    }
    // Curves per node type that were learned (or set up to be) where none was given now.
    for (auto& [type, typed] : known.curves) {
      const auto given = fresh.curves.find(type);
      if (given != fresh.curves.end() && given->second.source == Source::given) continue;
      if (given == fresh.curves.end() && !fresh.curves.empty()) continue;
      if (typed.source != Source::learned && !typed.learner) continue;
      if (!same_range) typed.learner.reset();
      fresh.curves[type] = std::move(typed);
    }
  }
  if (fresh.costs_source != Source::given && known.costs_source == Source::learned) {
    fresh.up_cost_s = known.up_cost_s;
    fresh.down_cost_s = known.down_cost_s;
    fresh.costs_source = Source::learned;
  }
  if (fresh.learner && known.learner && same_range) fresh.learner = std::move(known.learner);
}

}  // namespace

std::string_view to_string(Source source) {
  switch (source) {
    case Source::given: return "given";
    case Source::assumed: return "assumed";
    case Source::learned: return "learned";
  }
  return "assumed";
}

std::optional<NoiseScale> noise_scale_of(const ElasticJob& job) {
  if (!job.given.batch) return std::nullopt;
  if (job.given.noise_scale) return NoiseScale{*job.given.noise_scale, Source::given};
  if (job.learned_noise_scale) return NoiseScale{*job.learned_noise_scale, Source::learned};
  return NoiseScale{static_cast<double>(job.given.batch->tuned), Source::assumed};
}

std::optional<std::string> ElasticJobs::outside_submitted_range(
    const protocol::JobRegistration& request, const Job& job) const {
  // The range it was submitted with (-N, marked at admission: a running job's record keeps no
  // maximum), and the one it registered with first: a registration may narrow them, never widen.
  const JobMark mark = read_job_mark(job.admin_comment);
  std::optional<std::pair<int, int>> bound;
  if (mark.min_nodes && mark.max_nodes) {
    bound = {static_cast<int>(*mark.min_nodes), static_cast<int>(*mark.max_nodes)};
  }
  std::string what = "submitted with";
  if (const auto registered = jobs_.find(request.job_id); registered != jobs_.end()) {
    bound = {registered->second.given.min_nodes, registered->second.given.max_nodes};
    what = "registered for";
  }
  if (!bound || (request.min_nodes >= bound->first && request.max_nodes <= bound->second)) {
    return std::nullopt;
  }
  return "job " + std::to_string(request.job_id) + " was " + what + " " +
         std::to_string(bound->first) + "-" + std::to_string(bound->second) +
         " nodes: a registration for " + std::to_string(request.min_nodes) + "-" +
         std::to_string(request.max_nodes) + " may not go beyond that (submit a new job)";
}

ScalingCurve assumed_curve(int max_nodes) {
  return CurveLearner(max_nodes).curve(1.0);
}

std::optional<std::string> ElasticJobs::add(const protocol::JobRegistration& request,
                                            const Job* job,
                                            const ElasticPartitions& elastic_partitions,
                                            std::int64_t now) {
  const std::string id = std::to_string(request.job_id);
  if (job == nullptr) return "job " + id + " is not known to Slurm";
  if (job->state != JobState::running) {
    return "job " + id + " is " + std::string(to_string(job->state)) + ", not running";
  }
  if (!elastic_partitions.contains(job->partition)) {
    // Growing it would hand idle nodes to a job of a regular tier, outside the holes' policy.
    const std::string which = elastic_partitions.names().size() == 1
                                  ? "the elastic partition " + elastic_partitions.first()
                                  : "the elastic partitions " + elastic_partitions.joined();
    return "job " + id + " runs in partition " + job->partition + ": only jobs of " + which +
           " are managed (submit with -p " + elastic_partitions.first() + ")";
  }
  if (job->tres_per_node.empty() && job->tres_per_job.find("gpu") != std::string::npos) {
    // A satellite asks for its job's GPUs per node; a job total says nothing of a new node.
    return "job " + id + " asks for its GPUs as a job total (" + job->tres_per_job +
           "): a node it grows into would get none; ask for them per node (--gpus-per-node or "
           "--gres=gpu:N)";
  }
  if (request.min_nodes < 1 || request.max_nodes < request.min_nodes) {
    return "min_nodes " + std::to_string(request.min_nodes) + " and max_nodes " +
           std::to_string(request.max_nodes) + " must satisfy 1 <= min_nodes <= max_nodes";
  }
  if (auto beyond = outside_submitted_range(request, *job)) return beyond;
  if (auto problem = check_cost(request.up_cost_s, "up_cost_s")) return problem;
  if (auto problem = check_cost(request.down_cost_s, "down_cost_s")) return problem;

  ElasticJob elastic;
  elastic.job_id = request.job_id;
  elastic.given = request;
  if (!job->user.empty()) elastic.given.user = job->user;
  if (!job->batch_host.empty()) elastic.given.batch_host = job->batch_host;
  elastic.uid = job->user_id;
  elastic.batch_host = elastic.given.batch_host;
  elastic.nodes = batch_host_first(*job, elastic.batch_host);
  elastic.at_home = job->at_home;
  // A given curve is a ScalingCurve: its rule was checked when the registration was decoded.
  if (request.curve) {
    elastic.curve_source = Source::given;
    elastic.curve = *request.curve;
  } else {
    elastic.curve = assumed_curve(request.max_nodes);
  }
  if (request.up_cost_s && request.down_cost_s) elastic.costs_source = Source::given;
  LearnerPrior prior;
  for (const auto& [type, given] : request.curves) {
    TypeCurve& typed = elastic.curves[type];
    if (given) {
      typed.source = Source::given;
      typed.curve = *given;
    } else {
      typed.curve = assumed_curve(request.max_nodes);
      typed.learner.emplace(request.max_nodes, prior);
    }
  }
  // Every type's curve given: nothing for the job-wide learner to learn but the costs.
  if (!request.curves.empty() && std::ranges::all_of(request.curves, [](const auto& entry) {
        return entry.second.has_value();
      })) {
    elastic.curve_source = Source::given;
  }
  elastic.up_cost_s = request.up_cost_s.value_or(prior.up_cost_s);
  elastic.down_cost_s = request.down_cost_s.value_or(prior.down_cost_s);
  elastic.registered_at = now;
  if (elastic.curve_source == Source::assumed || elastic.costs_source == Source::assumed) {
    prior.up_cost_s = elastic.up_cost_s;
    prior.down_cost_s = elastic.down_cost_s;
    elastic.learner.emplace(request.max_nodes, prior);
  }
  if (const auto known = jobs_.find(request.job_id); known != jobs_.end()) {
    keep_what_is_known(elastic, std::move(known->second));
  }
  jobs_[request.job_id] = std::move(elastic);
  return std::nullopt;
}

std::optional<std::string> ElasticJobs::add(const protocol::JobRegistration& request,
                                            const Snapshot& snapshot,
                                            const ElasticPartitions& elastic_partitions,
                                            std::int64_t now,
                                            std::string_view satellite_partition) {
  const Job* job = find_job(snapshot, request.job_id);
  const bool known = jobs_.contains(request.job_id);
  if (auto refused = add(request, job, elastic_partitions, now)) return refused;
  if (!known) collect_satellites(jobs_.at(request.job_id), *job, snapshot, satellite_partition);
  return std::nullopt;
}

void ElasticJobs::restore_learned(std::uint32_t job_id, const std::optional<ScalingCurve>& curve,
                                  const std::optional<std::pair<double, double>>& costs,
                                  const std::optional<double>& noise_scale) {
  const auto it = jobs_.find(job_id);
  if (it == jobs_.end()) return;
  ElasticJob& job = it->second;
  // (A ScalingCurve's rates are > 0: whatever it holds could have been learned.)
  if (curve && job.curve_source != Source::given) {
    job.curve = *curve;
    job.curve_source = Source::learned;
  }
  if (costs && job.costs_source != Source::given) {
    job.up_cost_s = costs->first;
    job.down_cost_s = costs->second;
    job.costs_source = Source::learned;
  }
  if (noise_scale && job.given.batch) job.learned_noise_scale = noise_scale;
}

bool ElasticJobs::report(const protocol::LauncherReport& report, std::int64_t now, double mono_s) {
  const auto it = jobs_.find(report.job_id);
  if (it == jobs_.end()) return false;
  ElasticJob& job = it->second;
  const bool progress =
      report.samples_done && plausible_progress(job, *report.samples_done, mono_s);
  if (report.samples_done && !progress) ++job.progress_refused;
  if (progress) {
    job.samples_done = report.samples_done;
    job.samples_taken_mono_s = mono_s;
  }
  job.reported_at = now;
  job.running = report.running;
  job.drained = report.drained;
  if (progress) learn(job, *report.samples_done, report.world_size, mono_s);
  if (job.given.batch && report.grad_sqr && report.grad_var &&
      job.noise_learner.observe(*report.grad_sqr, *report.grad_var)) {
    job.learned_noise_scale = stepped_noise_scale(
        job.learned_noise_scale, job.noise_learner.noise_scale(job.given.batch->tuned));
  }
  return true;
}

namespace {

// The training stalls from a resize until it runs at its new size: that stall is the rescale
// cost the learner measures, a grow's or a shrink's. A stall still open when the next resize
// begins ends there: the next cannot be told from it. A reclaim's shrink and the grow back
// half a second later, before any report showed progress, once left the shrink unmeasured and
// its cost assumed for good (elastic.pytorch on Slurm 26.05).
void start_stall(ElasticJob& job, bool grow, double mono_s) {
  if (job.stalled_since_mono_s && job.learner) {
    job.learner->observe_rescale(job.stalled_by_grow, mono_s - *job.stalled_since_mono_s);
  }
  job.stalled_by_grow = grow;
  job.stalled_since_mono_s = mono_s;
  job.samples_at_resize = job.samples_done.value_or(0.0);
  job.window.reset();
}

}  // namespace

void ElasticJobs::resized(std::uint32_t job_id, std::vector<std::string> nodes,
                          std::map<std::string, std::uint32_t> satellites, double mono_s) {
  const auto it = jobs_.find(job_id);
  if (it == jobs_.end()) return;
  ElasticJob& job = it->second;
  start_stall(job, nodes.size() > job.nodes.size(), mono_s);
  job.nodes = std::move(nodes);
  job.satellites = std::move(satellites);
}

std::string anchor_of(const ElasticJob& job) {
  if (!job.at_home) return job.batch_host;
  return job.nodes.empty() ? std::string() : job.nodes.front();
}

Refreshed ElasticJobs::refresh(const Snapshot& snapshot, double mono_s,
                               std::string_view satellite_partition) {
  Refreshed refreshed;
  const NodeTypes types(snapshot);
  for (auto it = jobs_.begin(); it != jobs_.end();) {
    const Job* job = find_job(snapshot, it->first);
    if (job == nullptr || !holds_nodes(*job)) {
      refreshed.forgotten.push_back(it->first);
      it = jobs_.erase(it);
      continue;
    }
    ElasticJob& elastic = it->second;
    if (!job->batch_host.empty()) elastic.batch_host = job->batch_host;
    elastic.nodes = batch_host_first(*job, elastic.batch_host);
    elastic.at_home = job->at_home;
    // A job runs on one type at a time (the allocator keeps it there): its batch host's.
    elastic.held_type = elastic.nodes.empty() ? std::string() : types.of(elastic.nodes.front());
    learn_per_type(elastic, *job, snapshot);
    const std::map<std::string, std::uint32_t> before = std::move(elastic.satellites);
    collect_satellites(elastic, *job, snapshot, satellite_partition);
    // Only a satellite Slurm says it preempted: one gaptraind released itself left the map
    // when it was released (resized()), and one cancelled by hand is no reclaim.
    std::vector<std::string> taken;
    for (const auto& [node, id] : before) {
      const Job* satellite = find_job(snapshot, id);
      if (!elastic.satellites.contains(node) && satellite != nullptr && satellite->preempted) {
        taken.push_back(node);
      }
    }
    if (!taken.empty()) {
      start_stall(elastic, false, mono_s);
      refreshed.preempted[it->first] = std::move(taken);
    }
    ++it;
  }
  return refreshed;
}

}  // namespace gaptrain::core
