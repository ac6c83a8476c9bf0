#include "simulator/simulator.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <deque>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>

#include "allocator/allocator.hpp"
#include "core/curve_learner.hpp"
#include "gaptrain/input_error.hpp"
#include "simulator/equal_share.hpp"
#include "simulator/hole_predictor.hpp"
#include "simulator/reclaim_risk.hpp"

namespace gaptrain::sim {

namespace {

constexpr std::array kPolicyNames = {
    std::pair{Policy::gaptrain, std::string_view("gaptrain")},
    std::pair{Policy::bftrainer, std::string_view("bftrainer")},
    std::pair{Policy::equal_share, std::string_view("equal-share")},
    std::pair{Policy::oracle, std::string_view("oracle")},
};

// Completion times are computed in floating point: a job within this much of its end is done.
constexpr double kDoneTolerance_s = 1e-6;

enum class Phase { waiting, queued, admitted, done };

// A rescale whose stall the job will report once training resumes (for --learn).
struct PendingStall {
  bool grow = false;
  double cost_s = 0.0;
  double ends_s = 0.0;
};

struct JobState {
  const JobSpec* spec = nullptr;
  const ScalingCurve* curve = nullptr;  // the true curve: what the job really does
  Phase phase = Phase::waiting;
  std::vector<int> nodes;  // batch host first
  double done_samples = 0.0;
  double stall_until_s = -kUnknownEnd;  // no progress before this time (rescaling)
  std::optional<PendingStall> pending_stall;
  std::optional<CurveLearner> learner;

  int count() const { return static_cast<int>(nodes.size()); }
  double rate() const { return nodes.empty() ? 0.0 : curve->at(count()); }
  double remaining() const { return spec->work_samples - done_samples; }
};

double percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0.0;
  const auto k = static_cast<std::size_t>(std::ceil(p * static_cast<double>(values.size()))) - 1;
  const auto at = values.begin() + static_cast<std::ptrdiff_t>(std::min(k, values.size() - 1));
  std::nth_element(values.begin(), at, values.end());
  return *at;
}

// One replay: the cluster's node states, the elastic jobs and the metrics, advanced event by
// event (docs/simulator.md "Event semantics": progress, reclaims, completions, new holes,
// admission, re-solve).
class Replay {
 public:
  Replay(const HoleTrace& trace, const std::vector<JobSpec>& jobs, const CurveTable& curves,
         const SimOptions& options, const StepObserver& observer)
      : trace_(trace), options_(options), observer_(observer) {
    const int total = static_cast<int>(trace.node_names.size());
    node_count_ = options.node_limit > 0 ? std::min(options.node_limit, total) : total;
    offered_.assign(static_cast<std::size_t>(node_count_), false);
    predicted_end_.assign(offered_.size(), kUnknownEnd);
    actual_end_.assign(offered_.size(), kUnknownEnd);
    idle_since_.assign(offered_.size(), 0.0);
    holder_.assign(offered_.size(), -1);
    for (int i = 0; i < node_count_; ++i) node_index_.emplace(trace.node_names[idx(i)], i);

    start_s_ = options.start_s;
    end_s_ = std::min(trace.end_s, options.start_s + options.duration_s);
    jobs_.reserve(jobs.size());
    for (const JobSpec& spec : jobs) {
      JobState job;
      job.spec = &spec;
      job.curve = &curves.at(spec.model);
      if (options.learn) job.learner.emplace(max_nodes(spec));
      jobs_.push_back(std::move(job));
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
    summary_.efficiency =
        summary_.ideal_samples > 0.0 ? summary_.useful_samples / summary_.ideal_samples : 1.0;
    summary_.solves = static_cast<long long>(solve_ms_.size());
    summary_.solver_ms_p50 = percentile(solve_ms_, 0.50);
    summary_.solver_ms_p99 = percentile(solve_ms_, 0.99);
    summary_.solver_ms_max =
        solve_ms_.empty() ? 0.0 : *std::max_element(solve_ms_.begin(), solve_ms_.end());
    return summary_;
  }

 private:
  static std::size_t idx(int i) { return static_cast<std::size_t>(i); }
  // A job's maximum, at most the nodes the replay has (a larger one means all of them; the
  // minimum is kept, and a job needing more than there are never starts).
  int max_nodes(const JobSpec& spec) const {
    return std::max(spec.min_nodes, std::min(spec.max_nodes, node_count_));
  }
  JobState& job(int j) { return jobs_[idx(j)]; }
  bool oracle() const { return options_.policy == Policy::oracle; }

  // Node states at the window start: every trace step before it, with no jobs yet.
  void fast_forward_to_start() {
    while (next_step_ < trace_.steps.size() && trace_.steps[next_step_].time_s <= start_s_) {
      for (const NodeUpdate& u : trace_.steps[next_step_].updates) {
        if (u.node >= node_count_) continue;
        if (u.idle) {
          set_idle(u, trace_.steps[next_step_].time_s);
        } else {
          offered_[idx(u.node)] = false;
        }
      }
      ++next_step_;
    }
    offered_count_ = static_cast<int>(std::count(offered_.begin(), offered_.end(), true));
    dirty_ = true;
  }

  double completion_time(const JobState& j, double now) const {
    if (j.nodes.empty()) return kUnknownEnd;
    return std::max(now, j.stall_until_s) + std::max(0.0, j.remaining()) / j.rate();
  }

  double next_event_after(double now) const {
    double next = kUnknownEnd;
    if (next_step_ < trace_.steps.size()) next = trace_.steps[next_step_].time_s;
    if (next_submit_ < submit_order_.size())
      next = std::min(next, start_s_ + jobs_[idx(submit_order_[next_submit_])].spec->submit_s);
    for (int j : admitted_) next = std::min(next, completion_time(jobs_[idx(j)], now));
    return next;
  }

  // Progress and metrics over [from, to], during which nothing changes.
  void advance(double from, double to) {
    const double dt = to - from;
    if (dt <= 0.0) return;
    summary_.hole_node_seconds += offered_count_ * dt;
    hazard_.add_idle_node_seconds(offered_count_ * dt);
    summary_.allocated_node_seconds += allocated_count_ * dt;
    for (int j : admitted_) {
      JobState& s = job(j);
      if (s.nodes.empty()) continue;
      const double rate = s.rate();
      const double productive = std::max(0.0, to - std::max(from, s.stall_until_s));
      const double samples = std::min(rate * productive, std::max(0.0, s.remaining()));
      s.done_samples += samples;
      summary_.useful_samples += samples;
      summary_.ideal_samples += rate * dt;
      rescale_loss_samples_ += rate * (dt - productive);
      if (s.learner) {
        if (productive > 0.0) s.learner->observe_progress(s.count(), samples, productive);
        if (s.pending_stall && s.pending_stall->ends_s <= to) {
          s.learner->observe_rescale(s.pending_stall->grow, s.pending_stall->cost_s);
          s.pending_stall.reset();
        }
      }
    }
  }

  void step(double now) {
    solver_ms_this_step_ = 0.0;
    const TraceStep* trace_step = nullptr;
    if (next_step_ < trace_.steps.size() && trace_.steps[next_step_].time_s <= now)
      trace_step = &trace_.steps[next_step_++];
    if (trace_step) apply_reclaims(*trace_step, now);
    complete_jobs(now);
    if (trace_step) apply_new_holes(*trace_step, now);
    submit_and_admit(now);
    if (dirty_) decide(now);
    if (observer_) observer_(record(now));
  }

  void set_idle(const NodeUpdate& u, double now) {
    const std::size_t n = idx(u.node);
    // A new plan matters only within the horizon: the allocator values a node by its free time
    // up to the horizon, so ends beyond it are all alike (and most plan changes are there).
    if (predicted_end_[n] != u.predicted_end_s && options_.policy == Policy::gaptrain &&
        trace_.has_plan &&
        std::min(predicted_end_[n], u.predicted_end_s) < now + options_.horizon_s)
      dirty_ = true;
    predicted_end_[n] = u.predicted_end_s;
    actual_end_[n] = u.actual_end_s;
    if (!offered_[n]) {
      offered_[n] = true;
      idle_since_[n] = now;
      ++offered_count_;
      dirty_ = true;
    }
  }

  // The regular workload takes nodes back: a job losing nodes shrinks (paying its shrink cost),
  // or stops when it falls below its minimum or loses its batch host.
  void apply_reclaims(const TraceStep& trace_step, double now) {
    std::vector<int> hit;
    std::vector<bool> lost_batch_host;
    for (const NodeUpdate& u : trace_step.updates) {
      if (u.idle || u.node >= node_count_ || !offered_[idx(u.node)]) continue;
      const std::size_t n = idx(u.node);
      offered_[n] = false;
      --offered_count_;
      history_.observe(now - idle_since_[n]);
      hazard_.add_hole_end();
      const int j = holder_[n];
      if (j < 0) continue;
      holder_[n] = -1;
      --allocated_count_;
      ++summary_.reclaims;
      JobState& s = job(j);
      const auto pos = std::find(s.nodes.begin(), s.nodes.end(), u.node);
      const bool batch_host = pos == s.nodes.begin();
      s.nodes.erase(pos);
      const auto seen = std::find(hit.begin(), hit.end(), j);
      if (seen == hit.end()) {
        hit.push_back(j);
        lost_batch_host.push_back(batch_host);
      } else if (batch_host) {
        lost_batch_host[static_cast<std::size_t>(seen - hit.begin())] = true;
      }
    }
    for (std::size_t k = 0; k < hit.size(); ++k) {
      JobState& s = job(hit[k]);
      dirty_ = true;
      if (lost_batch_host[k] || s.count() < s.spec->min_nodes) {
        release_all(hit[k]);
      } else {
        charge_rescale(s, /*grow=*/false, now);
      }
    }
  }

  void complete_jobs(double now) {
    for (auto it = admitted_.begin(); it != admitted_.end();) {
      JobState& s = job(*it);
      const bool done = !s.nodes.empty() && completion_time(s, now) <= now + kDoneTolerance_s;
      if (!done) {
        ++it;
        continue;
      }
      s.done_samples = s.spec->work_samples;
      release_all(*it);
      s.phase = Phase::done;
      ++summary_.jobs_completed;
      it = admitted_.erase(it);
      dirty_ = true;
    }
  }

  void apply_new_holes(const TraceStep& trace_step, double now) {
    for (const NodeUpdate& u : trace_step.updates)
      if (u.idle && u.node < node_count_) set_idle(u, now);
  }

  void submit_and_admit(double now) {
    while (next_submit_ < submit_order_.size() &&
           start_s_ + jobs_[idx(submit_order_[next_submit_])].spec->submit_s <= now) {
      const int j = submit_order_[next_submit_++];
      job(j).phase = Phase::queued;
      queue_.push_back(j);
      ++summary_.jobs_submitted;
    }
    while (!queue_.empty() && static_cast<int>(admitted_.size()) < options_.max_running) {
      job(queue_.front()).phase = Phase::admitted;
      admitted_.push_back(queue_.front());
      queue_.pop_front();
      dirty_ = true;
    }
  }

  void release_all(int j) {
    JobState& s = job(j);
    for (int n : s.nodes) {
      holder_[idx(n)] = -1;
      --allocated_count_;
    }
    s.nodes.clear();
    s.pending_stall.reset();
  }

  // A rescale stalls the job for its cost: it holds its new nodes but makes no progress.
  void charge_rescale(JobState& s, bool grow, double now) {
    ++summary_.rescales;
    const double cost = oracle() ? 0.0 : (grow ? s.spec->up_cost_s : s.spec->down_cost_s);
    const bool stalled = s.stall_until_s > now;
    s.stall_until_s = std::max(s.stall_until_s, now) + cost;
    // Back-to-back rescales merge into one stall nobody can attribute: the learner skips it.
    if (stalled) {
      s.pending_stall.reset();
    } else {
      s.pending_stall = PendingStall{grow, cost, s.stall_until_s};
    }
  }

  // --- Decisions -------------------------------------------------------------------------------

  void decide(double now) {
    dirty_ = false;
    if (admitted_.empty() || offered_count_ == 0) return;
    std::vector<std::vector<int>> targets =
        options_.policy == Policy::equal_share ? equal_share_targets() : allocator_targets(now);
    apply_targets(targets, now);
  }

  std::optional<double> hole_end_for(int node, double now) const {
    const std::size_t n = idx(node);
    switch (options_.policy) {
      case Policy::oracle:
        if (actual_end_[n] == kUnknownEnd) return std::nullopt;
        return power_of_two_floor(actual_end_[n] - now);
      case Policy::gaptrain:
        if (trace_.has_plan) {
          if (predicted_end_[n] == kUnknownEnd) return std::nullopt;
          return std::max(0.0, predicted_end_[n] - now);
        }
        return history_prediction(now - idle_since_[n]);
      case Policy::bftrainer:
      case Policy::equal_share: return std::nullopt;
    }
    return std::nullopt;
  }

  // With no plan (node-event logs), how long a node idle for `age_s` stays idle, from the holes
  // seen so far.
  std::optional<double> history_prediction(double age_s) const {
    const std::optional<double> expected = history_.expected_remaining(age_s, options_.horizon_s);
    if (!expected) return std::nullopt;
    return power_of_two_floor(*expected);
  }

  // Remaining hole time rounded down to a power of two seconds (0 below 1 s): a few distinct
  // values keep the allocator's hole classes few and its solves fast, and the rounding never
  // promises a node for longer than known.
  std::optional<double> power_of_two_floor(double remaining_s) const {
    if (remaining_s >= options_.horizon_s) return std::nullopt;
    if (remaining_s < 1.0) return 0.0;
    return std::exp2(std::floor(std::log2(remaining_s)));
  }

  // The learned jobs' stand-in for S(1) before they have run: the median of the running jobs'
  // estimates, else the last such median. Only the running jobs: a decision must not cost time
  // in the number of jobs ever submitted (a year of KTH submits 60,000).
  double learned_rate_fallback() {
    std::vector<double> rates;
    for (int j : admitted_)
      if (const JobState& s = jobs_[idx(j)]; s.learner)
        if (auto r = s.learner->one_node_rate()) rates.push_back(*r);
    if (!rates.empty()) last_rate_fallback_ = percentile(std::move(rates), 0.5);
    return last_rate_fallback_;
  }

  // The job as the allocator sees it; empty when it is worth nothing (reclaim_adjusted): it is
  // then left out of the problem, and gets no nodes.
  std::optional<ElasticJob> elastic_job(const JobState& s, double fallback_rate) const {
    ElasticJob e;
    e.id = s.spec->id;
    e.min_nodes = s.spec->min_nodes;
    e.max_nodes = max_nodes(*s.spec);
    if (s.learner) {
      e.curve = s.learner->curve(fallback_rate);
      e.up_cost_s = s.learner->up_cost_s();
      e.down_cost_s = s.learner->down_cost_s();
    } else {
      e.curve = *s.curve;
      e.up_cost_s = s.spec->up_cost_s;
      e.down_cost_s = s.spec->down_cost_s;
    }
    // gaptrain's own knowledge beyond BFTrainer's: reclaims the plan cannot show cost more on
    // large jobs (reclaim_risk.hpp). The oracle keeps gaptrain's rule, so that it bounds it.
    if (options_.policy == Policy::gaptrain || oracle()) {
      std::optional<ScalingCurve> adjusted = reclaim_adjusted(
          e.curve, e.max_nodes, hazard_.per_node_second(), e.up_cost_s, e.down_cost_s);
      if (!adjusted) return std::nullopt;
      e.curve = std::move(*adjusted);
    }
    if (oracle()) e.up_cost_s = e.down_cost_s = 0.0;  // its rescales are free
    if (!s.nodes.empty()) e.batch_host = trace_.node_names[idx(s.nodes.front())];
    return e;
  }

  std::vector<std::vector<int>> allocator_targets(double now) {
    AllocationProblem problem;
    problem.horizon_s = options_.horizon_s;
    problem.objective = options_.objective;
    problem.solver = options_.solver;
    if (options_.policy == Policy::bftrainer) problem.solver.max_hole_classes = 1;
    problem.nodes.reserve(idx(offered_count_));
    for (int n = 0; n < node_count_; ++n) {
      if (!offered_[idx(n)]) continue;
      NodeState node{trace_.node_names[idx(n)], std::nullopt, hole_end_for(n, now)};
      if (holder_[idx(n)] >= 0) node.job = jobs_[idx(holder_[idx(n)])].spec->id;
      problem.nodes.push_back(std::move(node));
    }
    const double fallback_rate = options_.learn ? learned_rate_fallback() : 1.0;
    for (int j : admitted_)
      if (std::optional<ElasticJob> e = elastic_job(job(j), fallback_rate))
        problem.jobs.push_back(std::move(*e));

    const AllocationResult result = allocate(problem);
    if (result.call_status != CallStatus::ok)
      throw std::runtime_error("simulate: the allocator failed at t=" + std::to_string(now) +
                               " s: " + result.message);
    solve_ms_.push_back(result.solve_ms);
    solver_ms_this_step_ = result.solve_ms;

    std::vector<std::vector<int>> targets(admitted_.size());
    for (std::size_t k = 0; k < admitted_.size(); ++k) {
      const auto it = result.allocation.find(job(admitted_[k]).spec->id);
      if (it == result.allocation.end()) continue;
      for (const std::string& name : it->second) targets[k].push_back(node_index_.at(name));
    }
    return targets;
  }

  // BFTrainer's heuristic: counts from the equal split; a shrinking job keeps its batch host
  // and first nodes, a growing one takes the lowest-index free nodes.
  std::vector<std::vector<int>> equal_share_targets() {
    std::vector<ShareLimits> limits;
    for (int j : admitted_) limits.push_back({job(j).spec->min_nodes, job(j).spec->max_nodes});
    const std::vector<int> counts = equal_share_counts(limits, offered_count_);
    std::vector<std::vector<int>> targets(admitted_.size());
    std::vector<bool> taken(offered_.size(), false);
    for (std::size_t k = 0; k < admitted_.size(); ++k) {
      const std::vector<int>& held = job(admitted_[k]).nodes;
      const auto keep = std::min(held.size(), idx(counts[k]));
      targets[k].assign(held.begin(), held.begin() + static_cast<std::ptrdiff_t>(keep));
      for (int n : targets[k]) taken[idx(n)] = true;
    }
    int next_free = 0;
    for (std::size_t k = 0; k < admitted_.size(); ++k) {
      while (static_cast<int>(targets[k].size()) < counts[k]) {
        // Nodes a shrinking job gives up count as free: apply_targets() releases them first.
        while (!offered_[idx(next_free)] || taken[idx(next_free)]) ++next_free;
        taken[idx(next_free)] = true;
        targets[k].push_back(next_free);
      }
    }
    return targets;
  }

  // Moves every admitted job to its target node set (batch host first), charging rescales.
  // Releases first, so nodes a shrinking job gives up can go to a growing one.
  void apply_targets(const std::vector<std::vector<int>>& targets, double now) {
    for (std::size_t k = 0; k < admitted_.size(); ++k) {
      JobState& s = job(admitted_[k]);
      const std::vector<int>& target = targets[k];
      if (target.size() >= s.nodes.size()) continue;
      if (target.empty()) {
        release_all(admitted_[k]);
        continue;
      }
      for (int n : s.nodes) {
        if (std::find(target.begin(), target.end(), n) != target.end()) continue;
        holder_[idx(n)] = -1;
        --allocated_count_;
      }
      require_subset(target, s.nodes, *s.spec);
      s.nodes = target;
      charge_rescale(s, /*grow=*/false, now);
    }
    for (std::size_t k = 0; k < admitted_.size(); ++k) {
      JobState& s = job(admitted_[k]);
      const std::vector<int>& target = targets[k];
      if (target.size() <= s.nodes.size()) continue;
      require_subset(s.nodes, target, *s.spec);
      for (int n : target) {
        if (holder_[idx(n)] == admitted_[k]) continue;
        if (holder_[idx(n)] >= 0 || !offered_[idx(n)])
          throw std::logic_error("simulate: node " + trace_.node_names[idx(n)] + " given to job " +
                                 s.spec->id + " is not free");
        holder_[idx(n)] = admitted_[k];
        ++allocated_count_;
      }
      s.nodes = target;
      charge_rescale(s, /*grow=*/true, now);
    }
  }

  static void require_subset(const std::vector<int>& small, const std::vector<int>& large,
                             const JobSpec& spec) {
    for (int n : small)
      if (std::find(large.begin(), large.end(), n) == large.end())
        throw std::logic_error("simulate: the decision migrates job " + spec.id +
                               " (neither grow nor shrink)");
    if (!small.empty() && small.front() != large.front())
      throw std::logic_error("simulate: the decision moves job " + spec.id + "'s batch host");
  }

  StepRecord record(double now) const {
    StepRecord r;
    r.time_s = now;
    r.hole_nodes = offered_count_;
    r.allocated_nodes = allocated_count_;
    r.useful_samples = summary_.useful_samples;
    r.rescale_loss_samples = rescale_loss_samples_;
    r.solver_ms = solver_ms_this_step_;
    for (int j : admitted_) {
      const int n = jobs_[idx(j)].count();
      if (n == 0) continue;
      ++r.jobs_running;
      r.allocation.push_back({j, n});
    }
    return r;
  }

  const HoleTrace& trace_;
  const SimOptions& options_;
  const StepObserver& observer_;
  int node_count_ = 0;
  double start_s_ = 0.0;
  double end_s_ = 0.0;

  // Per node (index < node_count_).
  std::vector<bool> offered_;  // the regular workload leaves it free
  std::vector<double> predicted_end_;
  std::vector<double> actual_end_;
  std::vector<double> idle_since_;
  std::vector<int> holder_;  // elastic job index, -1 when none
  std::unordered_map<std::string, int> node_index_;
  int offered_count_ = 0;
  int allocated_count_ = 0;

  std::vector<JobState> jobs_;
  std::vector<int> submit_order_;
  std::size_t next_submit_ = 0;
  std::deque<int> queue_;      // submitted, waiting for admission (FCFS)
  std::vector<int> admitted_;  // in admission order
  double last_rate_fallback_ = 1.0;

  std::size_t next_step_ = 0;
  bool dirty_ = false;  // something changed that the last decision did not see
  HolePredictor history_;
  ReclaimHazard hazard_;
  SimSummary summary_;
  double rescale_loss_samples_ = 0.0;
  std::vector<double> solve_ms_;
  double solver_ms_this_step_ = 0.0;
};

void validate_options(const HoleTrace& trace, const SimOptions& options) {
  if (options.max_running < 1) throw InputError("--max-running", "must be >= 1");
  if (options.node_limit < 0) throw InputError("--nodes", "must be >= 1");
  if (!(options.horizon_s > 0.0)) throw InputError("horizon_s", "must be > 0");
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

SimSummary simulate(const HoleTrace& trace, const std::vector<JobSpec>& jobs,
                    const CurveTable& curves, const SimOptions& options,
                    const StepObserver& observer) {
  validate_options(trace, options);
  check_models_known(jobs, curves, "jobs");
  return Replay(trace, jobs, curves, options, observer).run();
}

std::vector<JobSpec> repeat_jobs(const std::vector<JobSpec>& jobs, double period_s,
                                 double until_s) {
  if (period_s <= 0.0) return jobs;
  std::vector<JobSpec> repeated;
  for (int round = 0;; ++round) {
    const double shift = round * period_s;
    bool any = false;
    for (const JobSpec& spec : jobs) {
      if (spec.submit_s + shift >= until_s) continue;
      JobSpec copy = spec;
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
