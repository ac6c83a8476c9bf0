#include "simulator/simulator.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <deque>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/controller.hpp"
#include "core/launch_instruction.hpp"
#include "gaptrain/input_error.hpp"
#include "gaptrain/node_sizes.hpp"
#include "gaptrain/protocol.hpp"
#include "simulator/batch_training.hpp"
#include "simulator/model_curves.hpp"
#include "simulator/node_types.hpp"
#include "simulator/replayed_slurm.hpp"

namespace gaptrain::sim {

namespace {

constexpr std::array kPolicyNames = {
    std::pair{Policy::gaptrain, std::string_view("gaptrain")},
    std::pair{Policy::bftrainer, std::string_view("bftrainer")},
    std::pair{Policy::equal_share, std::string_view("equal-share")},
};

// After a decision that changed Slurm or left a drain in flight, gaptraind decides again within
// a second: a change triggers a poll 0.1 s later, and launchers (whose acks complete drains)
// report twice a second. The replay's next decision comes then.
constexpr double kFollowUpS = 1.0;

// A job with a batch range learns its noise scale as it trains: every minute the replay moves
// its rate on (the noise scale its progress has reached) and, under the adaptive rule, lets
// gaptraind see the new statistics and choose again, as its polls would.
constexpr double kModelTickS = 60.0;

enum class Phase { waiting, queued, in_slurm, done };

struct JobRun {
  const JobRow* spec = nullptr;
  // The curve one number per count says of the job: its model's (the slowest of its types' when
  // it has types, model_curves.hpp), or with a batch range what it registers, raw.
  const ScalingCurve* curve = nullptr;
  const ModelCurves* truth = nullptr;  // its model's true curves (not with a batch range)
  double raw_rate = 0.0;  // without a batch range: its true samples/s where it trains now
  std::optional<BatchTraining> training;  // a job with a batch range (--models)
  Phase phase = Phase::waiting;
  std::uint32_t slurm_id = 0;           // while in Slurm
  double done_samples = 0.0;            // progress: samples at M0 (raw without a batch range)
  double samples_done = 0.0;            // the samples behind it
  double stall_until_s = -kUnknownEnd;  // no progress before this time (rescaling)
  int training_nodes = 0;               // the nodes its training runs on: held, less those draining
  TrainingRate now;  // with a batch range: its rates on training_nodes, refreshed at each step
  double submitted_at_s = 0.0;

  // Progress per second, and the raw samples behind it.
  double rate() const {
    if (training_nodes == 0) return 0.0;
    return training ? now.progress_per_s : raw_rate;
  }
  double samples_rate() const {
    if (training_nodes == 0) return 0.0;
    return training ? now.samples_per_s : raw_rate;
  }
  double remaining() const { return spec->work_samples - done_samples; }
};

double percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0.0;
  const auto k = static_cast<std::size_t>(std::ceil(p * static_cast<double>(values.size()))) - 1;
  const auto at = values.begin() + static_cast<std::ptrdiff_t>(std::min(k, values.size() - 1));
  std::nth_element(values.begin(), at, values.end());
  return *at;
}

// gaptraind's settings (cycle.hpp), and the comparison policy's.
core::CycleSettings policy_settings(const SimOptions& options) {
  core::CycleSettings settings = core::cycle_settings(options.config);
  settings.planner.objective = options.objective;
  settings.planner.solver = options.solver;
  settings.planner.use_hole_ends = options.policy != Policy::bftrainer;
  settings.planner.equal_share = options.policy == Policy::equal_share;
  settings.resize = true;  // a replay of a daemon that changes nothing would measure nothing
  return settings;
}

// One replay: the trace's regular workload and the elastic jobs' users act on the simulated
// Slurm, and gaptraind's core decides after each change (docs/simulator.md "Event semantics").
class Replay {
 public:
  Replay(const HoleTrace& trace, const std::vector<JobRow>& jobs, const CurveTable& curves,
         const SimOptions& options, const StepObserver& observer)
      : trace_(trace),
        options_(options),
        observer_(observer),
        slurm_(
            trace,
            options.node_limit > 0 ? options.node_limit : static_cast<int>(trace.node_names.size()),
            options.config.elastic_partitions.first(), ReplayedSlurm::kEpoch, options.placement,
            options.tell_node_types, {options.config.home_partition, options.config.satellite_qos}),
        gaptraind_(slurm_, policy_settings(options), core::resizer_settings(options.config)) {
    start_s_ = options.start_s;
    end_s_ = std::min(trace.end_s, options.start_s + options.duration_s);
    jobs_.reserve(jobs.size());
    for (const JobRow& spec : jobs) {
      if (!options.models) {
        JobRun run;
        run.spec = &spec;
        run.truth = &curves.at(spec.model);
        run.curve = &run.truth->curve;
        jobs_.push_back(std::move(run));
        continue;
      }
      JobRun run;
      run.spec = &spec;
      run.training.emplace(options.models->at(spec.model), spec, options.batch_rule);
      registered_curves_.push_back(run.training->registered_curve(
          std::max(spec.min_nodes, std::min(spec.max_nodes, slurm_.node_count()))));
      run.curve = &registered_curves_.back();
      jobs_.push_back(std::move(run));
    }
    submit_order_.resize(jobs_.size());
    for (std::size_t j = 0; j < jobs_.size(); ++j) submit_order_[j] = static_cast<int>(j);
    std::stable_sort(submit_order_.begin(), submit_order_.end(), [&](int a, int b) {
      return jobs_[idx(a)].spec->submit_s < jobs_[idx(b)].spec->submit_s;
    });
  }

  SimSummary run() {
    fast_forward_to_start();
    double now = start_s_;
    step(now);  // the window's first decision, and a record of the state it starts from
    while (true) {
      const double next = next_event_after(now);
      if (next > end_s_) {
        advance(now, end_s_);
        reclaims_this_step_ = 0;                   // the last step's were recorded with it
        if (observer_) observer_(record(end_s_));  // the log and plot reach the window's end
        break;
      }
      advance(now, next);
      now = next;
      step(now);
    }
    summary_.simulated_s = end_s_ - start_s_;
    summary_.utilization = summary_.hole_node_seconds > 0.0
                               ? summary_.allocated_node_seconds / summary_.hole_node_seconds
                               : 0.0;
    summary_.usable_utilization =
        summary_.usable_node_seconds > 0.0
            ? summary_.allocated_node_seconds / summary_.usable_node_seconds
            : 0.0;
    summary_.efficiency =
        summary_.ideal_samples > 0.0 ? summary_.useful_samples / summary_.ideal_samples : 1.0;
    summary_.mean_jct_s = jcts_s_.empty() ? 0.0
                                          : std::accumulate(jcts_s_.begin(), jcts_s_.end(), 0.0) /
                                                static_cast<double>(jcts_s_.size());
    summary_.p90_jct_s = percentile(jcts_s_, 0.90);
    if (!jobs_.empty() && static_cast<std::size_t>(summary_.jobs_completed) == jobs_.size()) {
      double first_submission_s = kUnknownEnd;
      for (const JobRun& run : jobs_)
        first_submission_s = std::min(first_submission_s, run.submitted_at_s);
      summary_.makespan_s = last_completion_s_ - first_submission_s;
    }
    summary_.solves = static_cast<long long>(solve_ms_.size());
    summary_.solver_ms_p50 = percentile(solve_ms_, 0.50);
    summary_.solver_ms_p99 = percentile(solve_ms_, 0.99);
    summary_.solver_ms_max =
        solve_ms_.empty() ? 0.0 : *std::max_element(solve_ms_.begin(), solve_ms_.end());
    summary_.reclaims = slurm_.reclaims();
    summary_.preemptions = slurm_.preemptions();
    summary_.requeues = slurm_.requeues();
    summary_.pauses = slurm_.pauses();
    const std::vector<double>& waits = slurm_.regular_waits();
    summary_.regular_waits = static_cast<long long>(waits.size());
    summary_.regular_wait_s_p50 = percentile(waits, 0.50);
    summary_.regular_wait_s_p99 = percentile(waits, 0.99);
    summary_.regular_wait_s_max =
        waits.empty() ? 0.0 : *std::max_element(waits.begin(), waits.end());
    return summary_;
  }

 private:
  static std::size_t idx(int i) { return static_cast<std::size_t>(i); }
  JobRun& job(int j) { return jobs_[idx(j)]; }

  // Node states at the window start: every trace step before it, with no jobs yet.
  void fast_forward_to_start() {
    while (next_step_ < trace_.steps.size() && trace_.steps[next_step_].time_s <= start_s_) {
      slurm_.set_time(trace_.steps[next_step_].time_s);
      apply_trace_step(trace_.steps[next_step_]);
      ++next_step_;
    }
  }

  void apply_trace_step(const TraceStep& trace_step) {
    for (const NodeUpdate& u : trace_step.updates) {
      if (u.node >= slurm_.node_count()) continue;
      if (u.idle) {
        const bool was_hole = slurm_.is_hole(slurm_.placed(u.node));
        const double before = slurm_.free_node(u.node, u.predicted_end_s);
        // A new plan matters within the horizon only: beyond it the allocator values every
        // end alike, and most of the scheduler's re-plans are there.
        const double near = slurm_.time() + options_.config.horizon_s;
        changed_ |= !was_hole ||
                    (before != u.predicted_end_s && std::min(before, u.predicted_end_s) < near);
      } else {
        changed_ |= slurm_.take_node(u.node);
      }
    }
  }

  double completion_time(const JobRun& r, double now) const {
    if (r.training_nodes == 0) return kUnknownEnd;
    return std::max(now, r.stall_until_s) + std::max(0.0, r.remaining()) / r.rate();
  }

  double next_event_after(double now) const {
    double next = follow_up_at_;
    if (next_step_ < trace_.steps.size()) next = std::min(next, trace_.steps[next_step_].time_s);
    if (next_submit_ < submit_order_.size())
      next = std::min(next, start_s_ + jobs_[idx(submit_order_[next_submit_])].spec->submit_s);
    for (const int j : in_slurm_) next = std::min(next, completion_time(jobs_[idx(j)], now));
    if (options_.models && !in_slurm_.empty()) next = std::min(next, next_tick_s_);
    return next;
  }

  // Progress and metrics over [from, to], during which nothing changes.
  void advance(double from, double to) {
    const double dt = to - from;
    if (dt <= 0.0) return;
    summary_.hole_node_seconds += slurm_.hole_nodes() * dt;
    summary_.allocated_node_seconds += slurm_.held_hole_nodes() * dt;
    summary_.usable_node_seconds += std::min(slurm_.hole_nodes(), usable_nodes()) * dt;
    summary_.waited_node_seconds += slurm_.regular_waiting() * dt;
    for (const int j : in_slurm_) {
      JobRun& r = job(j);
      if (r.training_nodes == 0) continue;
      const double rate = r.rate();
      const double samples_rate = r.samples_rate();
      const double productive = std::max(0.0, to - std::max(from, r.stall_until_s));
      const double progress = std::min(rate * productive, std::max(0.0, r.remaining()));
      // The raw samples behind that progress (fewer where the job completes within the step).
      const double samples = rate > 0.0 ? progress * samples_rate / rate : 0.0;
      r.done_samples += progress;
      r.samples_done += samples;
      summary_.progress += progress;
      summary_.useful_samples += samples;
      summary_.ideal_samples += samples_rate * dt;
      rescale_loss_samples_ += samples_rate * (dt - productive);
    }
  }

  // The most nodes the elastic jobs in Slurm could hold at once (SimSummary::usable_*).
  int usable_nodes() const {
    long long nodes = 0;
    for (const int j : in_slurm_)
      nodes += std::min(jobs_[idx(j)].spec->max_nodes, slurm_.node_count());
    return static_cast<int>(std::min<long long>(nodes, slurm_.node_count()));
  }

  void step(double now) {
    slurm_.set_time(now);
    solver_ms_this_step_ = 0.0;
    const long long reclaims_before = slurm_.reclaims();
    if (next_step_ < trace_.steps.size() && trace_.steps[next_step_].time_s <= now)
      apply_trace_step(trace_.steps[next_step_++]);
    reclaims_this_step_ = static_cast<int>(slurm_.reclaims() - reclaims_before);
    complete_jobs(now);
    submit(now);
    if (options_.models && now >= next_tick_s_) {
      next_tick_s_ = now + kModelTickS;
      for (const int j : in_slurm_) refresh_rate(job(j));
      changed_ |= options_.batch_rule == BatchRule::adaptive;
    }
    // gaptraind polls every few seconds; between changes a poll sees what the last one saw
    // and decides the same, so the replay decides when something changed or a decision asked
    // to look again (a drain, an admission, a backoff).
    if (changed_ || now >= follow_up_at_) decide(now);
    if (observer_) observer_(record(now));
  }

  void complete_jobs(double now) {
    for (auto it = in_slurm_.begin(); it != in_slurm_.end();) {
      JobRun& r = job(*it);
      const bool done = r.training_nodes > 0 && completion_time(r, now) <= now + kDoneTolerance_s;
      if (!done) {
        ++it;
        continue;
      }
      r.done_samples = r.spec->work_samples;
      slurm_.end_elastic(r.slurm_id);
      changed_ = true;
      r.training_nodes = 0;
      r.phase = Phase::done;
      ++summary_.jobs_completed;
      jcts_s_.push_back(now - r.submitted_at_s);
      last_completion_s_ = now;
      it = in_slurm_.erase(it);
    }
  }

  // The users' side: a job is submitted (held, for gaptraind to admit) while fewer than
  // max_running of theirs are in Slurm; the rest wait in their own queue, first come first.
  void submit(double now) {
    while (next_submit_ < submit_order_.size() &&
           start_s_ + jobs_[idx(submit_order_[next_submit_])].spec->submit_s <= now) {
      const int j = submit_order_[next_submit_++];
      job(j).phase = Phase::queued;
      job(j).submitted_at_s = start_s_ + job(j).spec->submit_s;
      queue_.push_back(j);
      ++summary_.jobs_submitted;
    }
    while (!queue_.empty() && static_cast<int>(in_slurm_.size()) < options_.max_running) {
      JobRun& r = job(queue_.front());
      r.phase = Phase::in_slurm;
      r.slurm_id = slurm_.submit_elastic(r.spec->id, r.spec->min_nodes, r.spec->max_nodes);
      changed_ = true;
      in_slurm_.push_back(queue_.front());
      queue_.pop_front();
    }
  }

  // What the plugin registers when the job starts: its curve and costs, unless --learn.
  protocol::JobRegistration registration(const JobRun& r, const core::Job& job) const {
    protocol::JobRegistration request;
    request.job_id = r.slurm_id;
    request.user = job.user;
    request.batch_host = job.batch_host;
    request.min_nodes = r.spec->min_nodes;
    request.max_nodes =
        std::max(r.spec->min_nodes, std::min(r.spec->max_nodes, slurm_.node_count()));
    if (options_.tell_allowed_sizes && !r.spec->allowed_sizes.empty()) {
      // Those the cluster has room for (the registration's counts end at its maximum).
      for (const int nodes : r.spec->allowed_sizes) {
        if (nodes <= request.max_nodes) request.allowed_sizes.push_back(nodes);
      }
      request.max_nodes = request.allowed_sizes.back();
    }
    if (options_.tell_node_types && r.truth != nullptr && !r.truth->by_type.empty()) {
      // The types it runs on, each with its curve (none under --learn: learned per type).
      for (const auto& [type, curve] : r.truth->by_type) {
        request.curves.emplace(type, options_.learn ? std::nullopt : std::optional(curve));
      }
    } else if (!options_.learn) {
      request.curve = *r.curve;
    }
    if (!options_.learn) {
      request.up_cost_s = r.spec->up_cost_s;
      request.down_cost_s = r.spec->down_cost_s;
    }
    // Under a fixed rule the job's script keeps its own batch and tells gaptraind nothing of it.
    if (r.training && r.training->rule() == BatchRule::adaptive) {
      request.batch = r.training->range();
    }
    return request;
  }

  // The launchers' side, before each decision: a job that started registers; every registered
  // one reports its progress, the nodes it trains on and the drains it let go of.
  void register_and_report(std::int64_t wall, double now) {
    for (const int j : in_slurm_) {
      const JobRun& r = jobs_[idx(j)];
      if (!slurm_.running(r.slurm_id)) continue;
      if (!gaptraind_.jobs().contains(r.slurm_id)) {
        const std::optional<core::Job> job = slurm_.job(r.slurm_id);
        if (auto refused = gaptraind_.add(registration(r, *job), wall))
          throw std::logic_error("simulate: registration of " + r.spec->id +
                                 " refused: " + *refused);
      }
      protocol::LauncherReport report;
      report.job_id = r.slurm_id;
      report.drained = gaptraind_.resizer().draining(r.slurm_id);
      for (const int node : slurm_.nodes_of(r.slurm_id)) {
        const std::string& name = slurm_.node_name(node);
        if (std::find(report.drained.begin(), report.drained.end(), name) == report.drained.end())
          report.running.push_back(name);
      }
      report.samples_done = r.samples_done;  // the launcher counts samples, not progress
      if (r.training) {
        // The statistics the helper reports, normalised to M0: phi = M0 * var / sqr.
        report.grad_sqr = 1.0;
        report.grad_var = r.training->noise_scale(r.done_samples) / r.training->range().tuned;
      }
      gaptraind_.report(report, core::Now{now, wall});
    }
  }

  // One of gaptraind's polls: the snapshot, the model, the core's cycle; then what the jobs'
  // training runs on after it.
  void decide(double now) {
    changed_ = false;
    follow_up_at_ = kUnknownEnd;
    const std::int64_t wall = slurm_.wall_at(now);
    core::Snapshot snapshot;
    slurm_.poll(snapshot, wall, true);
    (void)gaptraind_.observe(std::move(snapshot), core::Now{now, wall});
    register_and_report(wall, now);
    const core::CycleOutcome outcome = gaptraind_.decide(core::Now{now, wall});
    gaptraind_.record(outcome, core::Now{now, wall});
    ++summary_.cycles;
    (void)gaptraind_.resizer().take_reclaim_latencies();
    if (outcome.allocation) {
      if (outcome.allocation->call_status != allocator::CallStatus::ok)
        throw std::runtime_error("simulate: the allocator failed at t=" + std::to_string(now) +
                                 " s: " + outcome.allocation->message);
      solve_ms_.push_back(outcome.allocation->solve_ms);
      solver_ms_this_step_ = outcome.allocation->solve_ms;
    }
    for (const int j : in_slurm_) {
      retrain(job(j), now);
      refresh_rate(job(j));
    }
    const core::Resizer& resizer = gaptraind_.resizer();
    if (outcome.changed || !resizer.drains().empty()) follow_up_at_ = now + kFollowUpS;
    for (const auto& [id, backoff] : resizer.backoffs())
      if (backoff.retry_at > now) follow_up_at_ = std::min(follow_up_at_, backoff.retry_at);
  }

  // The training restarts on its new node count, stalled for the rescale's cost (the true
  // cost). Requeued or ended, it stops; starting again is a grow. A rescale while the job is
  // still restarting joins that restart (torchrun's agents re-enter one rendezvous,
  // docs/user.md): the stall ends a full cost after the later rescale, not after both costs
  // back to back.
  void retrain(JobRun& r, double now) {
    const std::vector<int> held = slurm_.nodes_of(r.slurm_id);
    const auto& draining = gaptraind_.resizer().draining(r.slurm_id);
    // A job that runs only at some counts trains on the largest it can use (a pipeline of
    // 2-node stages given 5 nodes runs 2 stages), and not at all below its smallest.
    const int nodes = largest_allowed_at_most(
        NodeSizes{r.spec->min_nodes, r.spec->max_nodes, r.spec->allowed_sizes},
        static_cast<int>(held.size() - std::min(held.size(), draining.size())));
    if (r.truth != nullptr) {
      // The types matter only to a model with a curve per type.
      r.raw_rate = training_rate(
          *r.truth,
          r.truth->by_type.empty() ? std::vector<std::string>() : training_types(held, draining),
          nodes);
    }
    if (nodes == r.training_nodes) return;
    const bool grow = nodes > r.training_nodes;
    const bool start = r.training_nodes == 0;
    r.training_nodes = nodes;
    if (nodes == 0) return;
    ++summary_.rescales;
    ++(start ? summary_.rescale_starts : grow ? summary_.rescale_grows : summary_.rescale_shrinks);
    const double cost = grow ? r.spec->up_cost_s : r.spec->down_cost_s;
    r.stall_until_s = std::max(r.stall_until_s, now + cost);
  }

  // The types of the nodes a job trains on: those it holds less those draining, each once.
  std::vector<std::string> training_types(const std::vector<int>& held,
                                          const std::vector<std::string>& draining) const {
    std::vector<std::string> types;
    for (const int node : held) {
      const std::string& type = slurm_.node_type(node);
      if (std::find(types.begin(), types.end(), type) != types.end()) continue;
      if (std::find(draining.begin(), draining.end(), slurm_.node_name(node)) != draining.end())
        continue;
      types.push_back(type);
    }
    return types;
  }

  // A job with a batch range: its rates on the nodes it trains on, at the batch it trains at
  // (gaptraind's instruction under the adaptive rule) and the noise scale of its progress.
  void refresh_rate(JobRun& r) {
    if (!r.training) return;
    std::optional<protocol::InstructedBatch> told;
    if (r.training->rule() == BatchRule::adaptive) {
      const auto& known = gaptraind_.jobs().jobs();
      if (const auto it = known.find(r.slurm_id); it != known.end()) {
        told = core::instructed_batch(it->second, r.training_nodes);
      }
    }
    r.now = r.training->rate(r.training_nodes, r.done_samples, told);
  }

  StepRecord record(double now) const {
    StepRecord r;
    r.time_s = now;
    r.hole_nodes = slurm_.hole_nodes();
    r.allocated_nodes = slurm_.held_hole_nodes();
    r.useful_samples = summary_.useful_samples;
    r.rescale_loss_samples = rescale_loss_samples_;
    r.solver_ms = solver_ms_this_step_;
    r.reclaimed_nodes = reclaims_this_step_;
    for (const int j : in_slurm_) {
      // Hole nodes only: one the trace took back is the waiting regular job's, not a hole.
      const std::vector<int> held = slurm_.nodes_of(jobs_[idx(j)].slurm_id);
      const auto n = static_cast<int>(
          std::count_if(held.begin(), held.end(), [&](int node) { return slurm_.is_hole(node); }));
      if (n == 0) continue;
      ++r.jobs_running;
      r.allocation.push_back({j, n});
    }
    return r;
  }

  const HoleTrace& trace_;
  const SimOptions& options_;
  const StepObserver& observer_;
  double start_s_ = 0.0;
  double end_s_ = 0.0;

  ReplayedSlurm slurm_;
  core::Controller gaptraind_;  // gaptraind's model and decision, as the daemon runs them

  std::vector<JobRun> jobs_;
  std::vector<int> submit_order_;
  std::size_t next_submit_ = 0;
  std::deque<int> queue_;      // submitted by their users, not yet in Slurm (FCFS)
  std::vector<int> in_slurm_;  // in Slurm, in submission order
  std::size_t next_step_ = 0;
  double follow_up_at_ = kUnknownEnd;
  bool changed_ = true;
  // the simulated Slurm changed since the last decision

  SimSummary summary_;
  std::vector<double> jcts_s_;  // each completed job's time from submission to completion
  double last_completion_s_ = 0.0;
  double next_tick_s_ = -kUnknownEnd;           // the next kModelTickS refresh (--models)
  std::deque<ScalingCurve> registered_curves_;  // by job, with --models (stable addresses)
  double rescale_loss_samples_ = 0.0;
  std::vector<double> solve_ms_;
  double solver_ms_this_step_ = 0.0;
  int reclaims_this_step_ = 0;
};

void validate_options(const HoleTrace& trace, const SimOptions& options) {
  if (options.max_running < 1) throw InputError("--max-running", "must be >= 1");
  if (options.node_limit < 0) throw InputError("--nodes", "must be >= 1");
  if (!(options.config.horizon_s > 0.0)) throw InputError("horizon_s", "must be > 0");
  if (!(options.start_s >= 0.0) || options.start_s >= trace.end_s)
    throw InputError(
        "--start", "must lie within the trace, which lasts " + std::to_string(trace.end_s) + " s");
  if (!(options.duration_s > 0.0)) throw InputError("--duration", "must be > 0");
}

}  // namespace

std::string_view to_string(Policy policy) {
  for (const auto& [p, name] : kPolicyNames)
    if (p == policy) return name;
  return "unknown";
}

std::optional<Policy> policy_from_string(std::string_view name) {
  for (const auto& [p, n] : kPolicyNames)
    if (n == name) return p;
  return std::nullopt;
}

SimSummary simulate(const HoleTrace& trace, const std::vector<JobRow>& jobs,
                    const CurveTable& curves, const SimOptions& options,
                    const StepObserver& observer) {
  validate_options(trace, options);
  if (options.models) {
    check_jobs_have_models(jobs, *options.models, "jobs");
  } else {
    check_models_known(jobs, curves, "jobs");
    check_jobs_have_node_types(
        trace,
        options.node_limit > 0 ? options.node_limit : static_cast<int>(trace.node_names.size()),
        jobs, curves, "jobs");
  }
  return Replay(trace, jobs, curves, options, observer).run();
}

std::vector<JobRow> repeat_jobs(const std::vector<JobRow>& jobs, double period_s, double until_s) {
  if (period_s <= 0.0) return jobs;
  std::vector<JobRow> repeated;
  for (int round = 0;; ++round) {
    const double shift = round * period_s;
    bool any = false;
    for (const JobRow& spec : jobs) {
      if (spec.submit_s + shift >= until_s) continue;
      JobRow copy = spec;
      copy.submit_s += shift;
      if (round > 0) copy.id += "#" + std::to_string(round + 1);
      repeated.push_back(std::move(copy));
      any = true;
    }
    if (!any) break;
  }
  return repeated;
}

}  // namespace gaptrain::sim
