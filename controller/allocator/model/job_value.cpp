#include "allocator/model/job_value.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <unordered_map>

namespace gaptrain::allocator {

namespace {

std::vector<double> rate_table(const AllocatableJob& job, const ScalingCurve& curve,
                               Objective objective, double fair_p, int largest) {
  const double one_node = curve.at(1.0);
  std::vector<double> rate(static_cast<std::size_t>(largest) + 1, 0.0);
  // Speedup and fairness are relative to the 1-node throughput; validate() lets it be 0 only for
  // a job that makes no progress at all, which is worth nothing (all zeros) in every objective.
  if (objective != Objective::throughput && one_node <= 0.0) return rate;
  for (int k = 0; k <= largest; ++k) {
    const double samples = curve.at(static_cast<double>(k));
    switch (objective) {
      case Objective::throughput: rate[static_cast<std::size_t>(k)] = samples; break;
      case Objective::speedup: rate[static_cast<std::size_t>(k)] = samples / one_node; break;
      case Objective::fair:
        rate[static_cast<std::size_t>(k)] = fair_value(samples / one_node, job.weight, fair_p);
        break;
    }
  }
  return rate;
}

// Gives each count the rate of the largest allowed size at or below it (0 below the smallest):
// what a job left with a count it may not run at, as holes end, achieves (see ClassedJob::rate).
void floor_to_allowed_sizes(std::vector<double>& rate, const std::vector<int>& sizes) {
  if (sizes.empty()) return;
  double running = 0.0;
  auto next = sizes.begin();
  for (std::size_t k = 0; k < rate.size(); ++k) {
    if (next != sizes.end() && static_cast<std::size_t>(*next) == k) {
      running = rate[k];
      ++next;
    }
    rate[k] = running;
  }
}

}  // namespace

ClassedProblem classify(const AllocationProblem& problem) {
  ClassedProblem out;
  out.horizon_s = problem.horizon_s;
  out.classes = classify_holes(problem);
  const std::size_t class_count = out.classes.end_s.size();

  std::unordered_map<std::string, std::size_t> job_index;
  for (std::size_t j = 0; j < problem.jobs.size(); ++j) job_index.emplace(problem.jobs[j].id, j);

  out.jobs.resize(problem.jobs.size());
  out.batch_host_node.assign(problem.jobs.size(), -1);
  out.holder.assign(problem.nodes.size(), -1);
  const auto node_count = static_cast<int>(problem.nodes.size());
  for (ClassedJob& job : out.jobs) job.held.assign(class_count, 0);

  for (std::size_t n = 0; n < problem.nodes.size(); ++n) {
    const AllocatableNode& node = problem.nodes[n];
    if (!node.job) continue;
    const std::size_t j = job_index.at(*node.job);
    const auto c = static_cast<std::size_t>(out.classes.node_class[n]);
    out.holder[n] = static_cast<int>(j);
    ++out.jobs[j].held[c];
    ++out.jobs[j].held_total;
    // Without an explicit batch host, assume the held node whose hole lasts longest.
    const AllocatableJob& spec = problem.jobs[j];
    int& host = out.batch_host_node[j];
    if (spec.batch_host) {
      if (*spec.batch_host == node.name) host = static_cast<int>(n);
    } else if (host < 0 ||
               out.classes.node_class[static_cast<std::size_t>(host)] < out.classes.node_class[n]) {
      host = static_cast<int>(n);
    }
  }

  for (std::size_t j = 0; j < problem.jobs.size(); ++j) {
    const AllocatableJob& spec = problem.jobs[j];
    ClassedJob& job = out.jobs[j];
    // Allowed sizes lie within [min, max] (validate()): their ends are the job's real bounds.
    job.sizes = spec.allowed_sizes;
    job.min_nodes = job.sizes.empty() ? spec.min_nodes : job.sizes.front();
    // No job can be given more nodes than the problem has: a larger maximum means "all of
    // them", and every table below is sized by what exists, not by what was claimed.
    job.max_nodes = std::min(job.sizes.empty() ? spec.max_nodes : job.sizes.back(), node_count);
    job.up_cost_s = spec.up_cost_s;
    job.down_cost_s = spec.down_cost_s;
    const int host = out.batch_host_node[j];
    job.batch_class = host < 0 ? -1 : out.classes.node_class[static_cast<std::size_t>(host)];
    // A job holding nodes stays on their type (validate(): one type, one it has a curve for).
    // A job that mixes types runs at its one curve on all of them.
    const int held_type =
        job.batch_class < 0 ? -1 : out.classes.type[static_cast<std::size_t>(job.batch_class)];
    const auto add_on = [&](int type, const ScalingCurve& curve) {
      JobOnType& on = job.on.emplace_back();
      on.type = type;
      on.rate = rate_table(spec, curve, problem.objective, problem.fair_p,
                           std::max(job.max_nodes, job.held_total));
      floor_to_allowed_sizes(on.rate, job.sizes);
    };
    if (spec.mix_types && !out.classes.type_name.empty()) {
      add_on(JobOnType::kEveryType, spec.curve);
    } else if (!spec.mix_types) {
      for (std::size_t t = 0; t < out.classes.type_name.size(); ++t) {
        const ScalingCurve* curve = curve_on(spec, out.classes.type_name[t]);
        if (curve == nullptr || (held_type >= 0 && static_cast<int>(t) != held_type)) continue;
        add_on(static_cast<int>(t), *curve);
      }
    }
    const JobOnType* held_on = held_type < 0 ? nullptr : job.on_type(held_type);
    job.current_rate = held_on != nullptr && job.held_total >= job.min_nodes
                           ? held_on->rate[static_cast<std::size_t>(job.held_total)]
                           : 0.0;
    // (A minimum above the node count can never run: nothing to lose then.)
    for (JobOnType& on : job.on) {
      on.reclaim_rate = job.current_rate > 0.0 ? job.current_rate
                        : job.min_nodes <= job.max_nodes
                            ? on.rate[static_cast<std::size_t>(job.min_nodes)]
                            : 0.0;
    }
  }
  return out;
}

double total_value(const ClassedProblem& problem, const std::vector<std::vector<int>>& counts) {
  double sum = 0.0;
  for (std::size_t j = 0; j < counts.size(); ++j) sum += job_value(problem, j, counts[j]);
  return sum;
}

int last_class(const ClassedJob& job, std::span<const int> counts) {
  if (job.held_total > 0) return job.batch_class;
  for (auto c = static_cast<int>(counts.size()) - 1; c >= 0; --c) {
    if (counts[static_cast<std::size_t>(c)] > 0) return c;
  }
  return -1;
}

double job_value(const ClassedProblem& problem, std::size_t j, std::span<const int> counts) {
  const ClassedJob& job = problem.jobs[j];
  const int total = std::accumulate(counts.begin(), counts.end(), 0);

  double value = 0.0;
  if (total > job.held_total) value -= job.up_cost_s * job.current_rate;
  if (total < job.held_total) value -= job.down_cost_s * job.current_rate;
  if (total == 0) return value;
  const JobOnType* on = job.on_type(problem.type_of(counts));
  if (on == nullptr) return -std::numeric_limits<double>::infinity();

  const int last = last_class(job, counts);
  const double job_end = problem.classes.end_s[static_cast<std::size_t>(last)];
  int alive = total;     // a_{j,s}: nodes whose class is >= s
  bool leaving = false;  // whether nodes of the current group of classes (one end) leave
  for (int s = 0; s <= last; ++s) {
    const auto su = static_cast<std::size_t>(s);
    value += problem.segment_length(su) * job.running_rate(*on, alive);
    // Nodes whose hole ends before the job's own end are a forced shrink, one per end (nodes of
    // two types that leave together, of a job that mixes types, are one).
    leaving |= counts[su] > 0 && problem.classes.end_s[su] < job_end;
    if (problem.ends_group(su) && leaving) {
      value -= job.down_cost_s * on->reclaim_rate;
      leaving = false;
    }
    alive -= counts[su];
  }
  return value;
}

}  // namespace gaptrain::allocator
