// Solve times of the count-level allocator, and of BFTrainer's node-level model for comparison,
// on random instances with the measured curves of curves.csv: half the nodes held by jobs,
// horizon 600 s, throughput objective; with no hole ends, or 20% of the nodes with a hole end
// from 3 distinct values below the horizon; BM_AllocateAllowedSizes: the same instances with
// allowed sizes on every job; BM_AllocateNodeTypes: the same instances on three node
// types; BM_AllocateMixedTypes: those with every fifth job mixing types.
//
// Each benchmark solves a fixed set of seeded instances per size, one per iteration, and
// reports the solve-time percentiles over them (p50_ms, p99_ms, max_ms) as counters next to the
// mean objective, the share of instances proven optimal, the worst relative gap and the largest
// model (columns, rows, integer columns; for the allocator also the jobs left to the MILP and
// the hole classes). BM_BFTrainerNodeModel also reports timed_out (instances stopped by its
// 60 s limit) and vs_allocator, the lowest ratio of its objective to the allocator's.
//
// No benchmark::DoNotOptimize here: in benchmark 1.7 its "+m,r" constraint makes GCC corrupt a
// non-const operand (we saw result.objective overwritten and a double free); the results feed
// the counters anyway, so nothing can be optimized away.
// With --benchmark_repetitions=N the p50/p99/max statistics over repetitions are added too.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "allocator/allocator.hpp"
#include "support/bftrainer_node_model.hpp"
#include "support/instances.hpp"

namespace {

using gaptrain::allocator::AllocationProblem;
using gaptrain::allocator::AllocationResult;
using gaptrain::allocator::ModelStatus;
namespace allocator = gaptrain::allocator;
namespace support = gaptrain::test_support;

constexpr int kInstancesPerSize = 20;
// The target is an optimal answer within 1 s; past it the allocator returns its incumbent, and
// the gap counter says how far from optimal that may be.
constexpr double kAllocatorTimeLimitS = 1.0;
constexpr int kNodeModelInstances = 3;
constexpr double kNodeModelTimeLimitS = 60.0;

// Instances for (nodes, jobs, with hole ends), generated once (support::bench_grid_params).
const std::vector<allocator::AllocationProblem>& instances(int nodes, int jobs, bool holes) {
  static std::map<std::tuple<int, int, bool>, std::vector<allocator::AllocationProblem>> cache;
  auto& problems = cache[{nodes, jobs, holes}];
  if (!problems.empty()) return problems;
  for (int i = 0; i < kInstancesPerSize; ++i) {
    support::InstanceParams params = support::bench_grid_params(nodes, jobs, holes, i);
    params.solver.time_limit_s = kAllocatorTimeLimitS;
    problems.push_back(support::random_problem(params));
  }
  return problems;
}

// The same instances with a batch range on every job: the tuned and largest batches
// and noise scales of Pollux's cifar10, imagenet and bert in turn, so that every job is valued by
// its goodput curve.
const std::vector<allocator::AllocationProblem>& batch_instances(int nodes, int jobs, bool holes) {
  static std::map<std::tuple<int, int, bool>, std::vector<allocator::AllocationProblem>> cache;
  auto& problems = cache[{nodes, jobs, holes}];
  if (!problems.empty()) return problems;
  const std::array<gaptrain::BatchRange, 3> ranges{{{128, 4096, 0}, {200, 12800, 0}, {12, 384, 0}}};
  const std::array<double, 3> noise_scales{2000.0, 20000.0, 400.0};
  problems = instances(nodes, jobs, holes);
  for (allocator::AllocationProblem& problem : problems) {
    for (std::size_t j = 0; j < problem.jobs.size(); ++j) {
      problem.jobs[j].batch = ranges[j % ranges.size()];
      problem.jobs[j].noise_scale = noise_scales[j % noise_scales.size()];
    }
  }
  return problems;
}

// The same instances with allowed sizes on every job: powers of two, multiples of a
// group of 2, 4 or 8, or a random list, drawn per job (support::constrain_sizes).
const std::vector<allocator::AllocationProblem>& sized_instances(int nodes, int jobs, bool holes) {
  static std::map<std::tuple<int, int, bool>, std::vector<allocator::AllocationProblem>> cache;
  auto& problems = cache[{nodes, jobs, holes}];
  if (!problems.empty()) return problems;
  problems = instances(nodes, jobs, holes);
  for (std::size_t i = 0; i < problems.size(); ++i) {
    support::constrain_sizes(problems[i], support::SizeRule::mixed, 33U + i, /*large=*/true);
    // (mixed leaves a quarter of the jobs free: constrain those as powers of two)
    for (gaptrain::allocator::AllocatableJob& job : problems[i].jobs) {
      if (!job.allowed_sizes.empty()) continue;
      for (int k = 1; k <= job.max_nodes; k *= 2) {
        if (k >= job.min_nodes) job.allowed_sizes.push_back(k);
      }
      if (job.allowed_sizes.empty()) job.allowed_sizes.push_back(job.max_nodes);
    }
  }
  return problems;
}

const std::array<std::string, 3> kNodeTypes{"a100", "h100", "cpu"};

// The same instances on three node types: idle nodes a100, a100, h100, h100, cpu in
// turn; a job runs on all three, on both GPU types or on one (a third of the jobs each), with its
// curve scaled by about 1 on a100, 1.8 on h100 and 0.2 on cpu, each times 1 to 1.3 by job and
// type (models gain differently from a newer GPU; with the same factors for every job, hundreds
// of jobs tie exactly between types at the prices, and 10,000 x 1,000 was proven in 40% of the
// instances within 1 s: docs/benchmarks.md); a job's held nodes take one of its types.
const std::vector<allocator::AllocationProblem>& typed_instances(int nodes, int jobs, bool holes) {
  static std::map<std::tuple<int, int, bool>, std::vector<allocator::AllocationProblem>> cache;
  auto& problems = cache[{nodes, jobs, holes}];
  if (!problems.empty()) return problems;
  const std::array<std::string, 3>& types = kNodeTypes;
  const std::array<double, 3> speed{1.0, 1.8, 0.2};
  problems = instances(nodes, jobs, holes);
  for (allocator::AllocationProblem& problem : problems) {
    std::map<std::string, std::string> held_type;
    for (std::size_t j = 0; j < problem.jobs.size(); ++j) {
      gaptrain::allocator::AllocatableJob& job = problem.jobs[j];
      const std::size_t kinds = j % 3 == 0 ? 3 : j % 3 == 1 ? 2 : 1;  // a100..: 3, 2 or 1 types
      const std::size_t first = kinds == 1 ? j / 3 % 3 : 0;
      for (std::size_t t = first; t < first + kinds; ++t) {
        std::vector<gaptrain::ScalingCurve::Point> points = job.curve.points();
        const double factor = speed[t] * (1.0 + 0.03 * static_cast<double>((j * 7 + t) % 11));
        for (auto& point : points) point.samples_per_s *= factor;
        job.curves.emplace(types[t], gaptrain::ScalingCurve(std::move(points)));
      }
      held_type[job.id] = types[first + j / 9 % kinds];
    }
    for (std::size_t n = 0; n < problem.nodes.size(); ++n) {
      gaptrain::allocator::AllocatableNode& node = problem.nodes[n];
      node.type = node.job ? held_type.at(*node.job)
                           : types[std::array<std::size_t, 5>{0, 0, 1, 1, 2}[n % 5]];
    }
  }
  return problems;
}

// The node-type instances with every fifth job mixing types: its one curve, times 1
// to 1.3 by job (about an a100's), instead of per-type curves, and its held nodes of the three
// types in turn.
const std::vector<allocator::AllocationProblem>& mixing_instances(int nodes, int jobs, bool holes) {
  static std::map<std::tuple<int, int, bool>, std::vector<allocator::AllocationProblem>> cache;
  auto& problems = cache[{nodes, jobs, holes}];
  if (!problems.empty()) return problems;
  problems = typed_instances(nodes, jobs, holes);
  for (allocator::AllocationProblem& problem : problems) {
    std::map<std::string, std::size_t> held;  // mixing job -> its held nodes typed so far
    for (std::size_t j = 4; j < problem.jobs.size(); j += 5) {
      gaptrain::allocator::AllocatableJob& job = problem.jobs[j];
      std::vector<gaptrain::ScalingCurve::Point> points = job.curve.points();
      const double factor = 1.0 + 0.03 * static_cast<double>(j % 11);
      for (auto& point : points) point.samples_per_s *= factor;
      job.curve = gaptrain::ScalingCurve(std::move(points));
      job.curves.clear();
      job.mix_types = true;
      held.emplace(job.id, 0);
    }
    for (gaptrain::allocator::AllocatableNode& node : problem.nodes) {
      const auto mixer = node.job ? held.find(*node.job) : held.end();
      if (mixer != held.end()) node.type = kNodeTypes[mixer->second++ % kNodeTypes.size()];
    }
  }
  return problems;
}

// Nearest-rank percentile of a sample.
double percentile(std::vector<double> sample, double p) {
  if (sample.empty()) return 0.0;
  std::sort(sample.begin(), sample.end());
  const auto rank =
      static_cast<std::size_t>(std::ceil(p / 100.0 * static_cast<double>(sample.size())));
  return sample[std::min(sample.size(), std::max<std::size_t>(rank, 1)) - 1];
}

double relative_gap(double objective, double bound) {
  return std::max(0.0, bound - objective) / std::max(1.0, std::abs(objective));
}

void report_times(benchmark::State& state, const std::vector<double>& ms) {
  state.counters["p50_ms"] = percentile(ms, 50.0);
  state.counters["p99_ms"] = percentile(ms, 99.0);
  state.counters["max_ms"] = percentile(ms, 100.0);
}

void measure_allocate(benchmark::State& state,
                      const std::vector<allocator::AllocationProblem>& problems) {
  std::vector<double> ms;
  double objective = 0.0;
  double worst_gap = 0.0;
  int optimal = 0;
  gaptrain::allocator::SolveStats largest;  // the largest model seen, field by field
  std::size_t next = 0;
  for (auto _ : state) {
    const allocator::AllocationProblem& problem = problems[next++ % problems.size()];
    const auto start = std::chrono::steady_clock::now();
    allocator::AllocationResult result = gaptrain::allocator::allocate(problem);
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                     .count());
    if (result.call_status != gaptrain::allocator::CallStatus::ok) {
      state.SkipWithError(("allocate failed: " + result.message).c_str());
      break;
    }
    objective += result.objective;
    optimal += result.model_status == allocator::ModelStatus::optimal ? 1 : 0;
    worst_gap = std::max(worst_gap, relative_gap(result.objective, result.best_bound));
    largest.columns = std::max(largest.columns, result.stats.columns);
    largest.rows = std::max(largest.rows, result.stats.rows);
    largest.integer_columns = std::max(largest.integer_columns, result.stats.integer_columns);
    largest.core_jobs = std::max(largest.core_jobs, result.stats.core_jobs);
    largest.hole_classes = std::max(largest.hole_classes, result.stats.hole_classes);
  }
  const auto solved = static_cast<double>(std::max<std::size_t>(ms.size(), 1));
  report_times(state, ms);
  state.counters["objective"] = objective / solved;
  state.counters["optimal"] = optimal / solved;
  state.counters["gap"] = worst_gap;
  state.counters["columns"] = largest.columns;
  state.counters["rows"] = largest.rows;
  state.counters["integers"] = largest.integer_columns;
  state.counters["core_jobs"] = largest.core_jobs;
  state.counters["hole_classes"] = largest.hole_classes;
}

void BM_Allocate(benchmark::State& state) {
  const int nodes = static_cast<int>(state.range(0));
  const int jobs = static_cast<int>(state.range(1));
  measure_allocate(state, instances(nodes, jobs, state.range(2) != 0));
}

void BM_AllocateBatchRanges(benchmark::State& state) {
  const int nodes = static_cast<int>(state.range(0));
  const int jobs = static_cast<int>(state.range(1));
  measure_allocate(state, batch_instances(nodes, jobs, state.range(2) != 0));
}

void BM_AllocateAllowedSizes(benchmark::State& state) {
  const int nodes = static_cast<int>(state.range(0));
  const int jobs = static_cast<int>(state.range(1));
  measure_allocate(state, sized_instances(nodes, jobs, state.range(2) != 0));
}

void BM_AllocateNodeTypes(benchmark::State& state) {
  const int nodes = static_cast<int>(state.range(0));
  const int jobs = static_cast<int>(state.range(1));
  measure_allocate(state, typed_instances(nodes, jobs, state.range(2) != 0));
}

void BM_AllocateMixedTypes(benchmark::State& state) {
  const int nodes = static_cast<int>(state.range(0));
  const int jobs = static_cast<int>(state.range(1));
  measure_allocate(state, mixing_instances(nodes, jobs, state.range(2) != 0));
}

void BM_BFTrainerNodeModel(benchmark::State& state) {
  const int nodes = static_cast<int>(state.range(0));
  const int jobs = static_cast<int>(state.range(1));
  const std::vector<allocator::AllocationProblem>& problems = instances(nodes, jobs, false);

  std::vector<double> ms;
  double objective = 0.0;
  double worst_gap = 0.0;
  double worst_ratio = 1.0;  // node model objective / allocator objective, lowest seen
  int optimal = 0;
  int timed_out = 0;
  support::NodeModelResult last;
  std::size_t next = 0;
  for (auto _ : state) {
    const allocator::AllocationProblem& problem = problems[next++ % problems.size()];
    last =
        support::solve_bftrainer_node_model(problem, kNodeModelTimeLimitS, problem.solver.mip_gap);
    ms.push_back(last.solve_ms);
    objective += last.objective;
    optimal += last.optimal ? 1 : 0;
    timed_out += last.timed_out ? 1 : 0;
    worst_gap = std::max(worst_gap, relative_gap(last.objective, last.best_bound));

    state.PauseTiming();  // what the count-level model finds on the same instance
    const allocator::AllocationResult counted = gaptrain::allocator::allocate(problem);
    if (counted.objective > 0.0) {
      worst_ratio = std::min(worst_ratio, last.objective / counted.objective);
    }
    state.ResumeTiming();
  }
  const auto solved = static_cast<double>(std::max<std::size_t>(ms.size(), 1));
  report_times(state, ms);
  state.counters["objective"] = objective / solved;
  state.counters["optimal"] = optimal / solved;
  state.counters["timed_out"] = timed_out;
  state.counters["gap"] = worst_gap;
  state.counters["vs_allocator"] = worst_ratio;
  state.counters["rows"] = last.rows;
  state.counters["columns"] = last.columns;
  state.counters["integers"] = last.binaries;
}

double p50(const std::vector<double>& v) {
  return percentile(v, 50.0);
}
double p99(const std::vector<double>& v) {
  return percentile(v, 99.0);
}
double max_of(const std::vector<double>& v) {
  return percentile(v, 100.0);
}

void allocator_sizes(benchmark::internal::Benchmark* b) {
  for (const auto& [nodes, jobs] : std::vector<std::pair<int, int>>{
           {100, 10}, {1000, 100}, {1000, 1000}, {2000, 200}, {5000, 500}, {10000, 1000}}) {
    for (int holes : {0, 1}) b->Args({nodes, jobs, holes});
  }
}

// The settings of the allocator benchmarks on the whole grid: one instance per iteration,
// times in ms, percentiles over repetitions.
void allocator_grid(benchmark::internal::Benchmark* b) {
  b->ArgNames({"nodes", "jobs", "holes"});
  allocator_sizes(b);
  b->Iterations(kInstancesPerSize)
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime()
      ->ComputeStatistics("p50", p50)
      ->ComputeStatistics("p99", p99)
      ->ComputeStatistics("max", max_of);
}

void node_model_sizes(benchmark::internal::Benchmark* b) {
  for (const auto& [nodes, jobs] :
       std::vector<std::pair<int, int>>{{100, 10}, {500, 50}, {1000, 100}}) {
    b->Args({nodes, jobs});
  }
}

BENCHMARK(BM_Allocate)->Apply(allocator_grid);

BENCHMARK(BM_AllocateBatchRanges)
    ->ArgNames({"nodes", "jobs", "holes"})
    ->Args({1000, 100, 0})
    ->Args({10000, 1000, 0})
    ->Args({10000, 1000, 1})
    ->Iterations(kInstancesPerSize)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->ComputeStatistics("p50", p50)
    ->ComputeStatistics("max", max_of);

BENCHMARK(BM_AllocateAllowedSizes)->Apply(allocator_grid);

BENCHMARK(BM_AllocateNodeTypes)->Apply(allocator_grid);

BENCHMARK(BM_AllocateMixedTypes)->Apply(allocator_grid);

BENCHMARK(BM_BFTrainerNodeModel)
    ->ArgNames({"nodes", "jobs"})
    ->Apply(node_model_sizes)
    ->Iterations(kNodeModelInstances)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->ComputeStatistics("p50", p50)
    ->ComputeStatistics("p99", p99)
    ->ComputeStatistics("max", max_of);

}  // namespace

BENCHMARK_MAIN();
