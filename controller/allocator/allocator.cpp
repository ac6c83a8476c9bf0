#include "allocator/allocator.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <span>

#include "allocator/decompose/lagrangian.hpp"
#include "allocator/decompose/option_filter.hpp"
#include "allocator/milp/milp.hpp"
#include "allocator/milp/option_milp.hpp"
#include "allocator/milp/single_class_dp.hpp"
#include "allocator/model/assign.hpp"
#include "allocator/model/evaluate.hpp"
#include "allocator/model/job_value.hpp"
#include "allocator/search/shortfall_search.hpp"

namespace gaptrain::allocator {

namespace {

struct Incumbent {
  std::vector<std::vector<int>> counts;
  double value = 0.0;
};

// Jobs whose choice is still open with their options, and the settled rest.
struct OptionLists {
  std::vector<JobOptions> open;
  std::vector<std::size_t> open_jobs;
  std::vector<std::vector<int>> settled;
  std::vector<int> residual;
};

// The options of every job (of the `open_only` jobs; the others keep the incumbent's) whose
// priced value is within `gap` of its best, plus the option the incumbent uses, without dominated
// ones; nullopt when more than `budget` options would be listed or the deadline passes. Jobs left
// with one option are settled: they go to `settled` and their nodes come off `residual`.
std::optional<OptionLists> list_options(const ClassedProblem& problem, const Decomposition& d,
                                        const Incumbent& incumbent, double gap, std::size_t budget,
                                        std::chrono::steady_clock::time_point deadline,
                                        const std::vector<bool>* open_only = nullptr) {
  const double slack = 1e-9 * std::max(1.0, std::abs(d.bound));
  OptionLists lists;
  lists.settled.resize(problem.jobs.size());
  lists.residual = problem.classes.size;
  for (std::size_t j = 0; j < problem.jobs.size(); ++j) {
    JobOptions options;
    const std::vector<int>& held_by_incumbent = incumbent.counts[j];
    const bool listed = open_only == nullptr || (*open_only)[j];
    const bool complete =
        !listed || for_each_option_above(
                       problem, j, d.price, d.responses[j].best - gap - slack,
                       [&](std::span<const int> counts, double) {
                         // (The clock every 256 options: reading it was 3% of a 100-node
                         // solve.)
                         if (budget == 0 || ((budget & 0xff) == 0 &&
                                             std::chrono::steady_clock::now() >= deadline)) {
                           return false;  // too long a list, or no time left to solve it
                         }
                         --budget;
                         if (std::equal(counts.begin(), counts.end(), held_by_incumbent.begin())) {
                           options.start = static_cast<int>(options.counts.size());
                         }
                         options.counts.emplace_back(counts.begin(), counts.end());
                         options.value.push_back(job_value(problem, j, counts));
                         return true;
                       });
    if (!complete) return std::nullopt;
    if (options.start < 0) {
      options.start = static_cast<int>(options.counts.size());
      options.counts.push_back(held_by_incumbent);
      options.value.push_back(job_value(problem, j, held_by_incumbent));
    }
    if (options.counts.size() <= kMostOptionsToFilter) drop_dominated(options);
    if (options.counts.size() == 1) {
      lists.settled[j] = options.counts.front();
      for (std::size_t c = 0; c < lists.residual.size(); ++c) {
        lists.residual[c] -= lists.settled[j][c];
      }
    } else {
      lists.open.push_back(std::move(options));
      lists.open_jobs.push_back(j);
    }
  }
  return lists;
}

// Above this many listed options per open job, the compact count-level model solves the open
// jobs instead (measured: a 5-job list of 5349 options took GLPK 8.9 s as a multiple-choice
// MILP); with more open jobs the compact model's relaxation is what gets slow (measured: 30 to
// 50 open jobs took it past 10 s).
constexpr std::size_t kOptionsPerJobForCompactModel = 20;
constexpr std::size_t kMostJobsForCompactModel = 12;

// The problem restricted to the open jobs, with the nodes the settled jobs use taken out.
ClassedProblem open_subproblem(const ClassedProblem& problem, const OptionLists& lists) {
  ClassedProblem open;
  open.horizon_s = problem.horizon_s;
  open.classes.end_s = problem.classes.end_s;
  open.classes.type = problem.classes.type;
  open.classes.type_name = problem.classes.type_name;
  open.classes.size = lists.residual;
  for (std::size_t j : lists.open_jobs) open.jobs.push_back(problem.jobs[j]);
  return open;
}

// Whether nodes left per class (negative: overbooked) show that nothing is overbooked.
bool fits(const std::vector<int>& left) {
  return std::all_of(left.begin(), left.end(), [](int n) { return n >= 0; });
}

// Whether an open job has allowed sizes. Its rate is then a step function (a job between sizes
// runs on the size below), whose ordering binaries make the compact model's relaxation weak: on
// bench_solver's sized 100 x 10 instances with hole ends, 5 open jobs took the compact model 640
// to 975 ms (one to the 1 s limit), the multiple-choice MILP over their lists 3 to 270 ms.
bool any_sized(const ClassedProblem& problem, const OptionLists& lists) {
  return std::any_of(lists.open_jobs.begin(), lists.open_jobs.end(),
                     [&problem](std::size_t j) { return !problem.jobs[j].sizes.empty(); });
}

CountSolution solve_lists(const ClassedProblem& problem, OptionLists& lists,
                          const SolverOptions& options,
                          std::chrono::steady_clock::time_point deadline) {
  CountSolution solution;
  if (lists.open.empty() && fits(lists.residual)) {  // every job settled: nothing left for GLPK
    solution.call_status = CallStatus::ok;
    solution.model_status = ModelStatus::optimal;
    solution.counts = std::move(lists.settled);
    return solution;
  }
  if (lists.open.empty()) return solution;  // settled choices overbook: no answer here
  const auto listed = [&lists] {
    std::size_t total = 0;
    for (const JobOptions& job : lists.open) total += job.counts.size();
    return total;
  };
  if (problem.class_count() == 1) {
    solution = solve_single_class(lists.open, lists.residual.front());
  } else if (lists.open.size() <= kMostJobsForCompactModel && !any_sized(problem, lists) &&
             listed() > kOptionsPerJobForCompactModel * lists.open.size()) {
    // Long lists of near-equal options make branching on single options hopeless; the compact
    // model branches on node counts instead, and over the open jobs alone it is small.
    solution = solve_counts(open_subproblem(problem, lists), options, deadline);
  } else {
    solution = solve_options(lists.open, lists.residual, options.mip_gap, deadline);
  }
  solution.core_jobs = static_cast<int>(lists.open_jobs.size());
  if (solution.counts.empty()) return solution;
  std::vector<std::vector<int>> counts = std::move(lists.settled);
  for (std::size_t i = 0; i < lists.open_jobs.size(); ++i) {
    counts[lists.open_jobs[i]] = std::move(solution.counts[i]);
  }
  solution.counts = std::move(counts);
  return solution;
}

// Solves `lists` and keeps the answer if it beats the incumbent.
void raise_incumbent(const ClassedProblem& problem, OptionLists& lists,
                     const SolverOptions& options, std::chrono::steady_clock::time_point deadline,
                     Incumbent& incumbent) {
  CountSolution better = solve_lists(problem, lists, options, deadline);
  if (better.counts.empty()) return;
  if (const double value = total_value(problem, better.counts); value > incumbent.value) {
    incumbent = {std::move(better.counts), value};
  }
}

// The shortfall search visits or keeps at most this many partial allocations (about 50 bytes
// each remembered by the depth-first search; 8 bytes each once passed, 24 while current, in the
// dynamic programme); past it the GLPK path below takes over.
constexpr std::size_t kShortfallBudget = 4'000'000;

CountSolution proven_optimal(std::vector<std::vector<int>> counts, double bound) {
  CountSolution proven;
  proven.call_status = CallStatus::ok;
  proven.model_status = ModelStatus::optimal;
  proven.best_bound = bound;
  proven.counts = std::move(counts);
  return proven;
}

struct SearchOutcome {
  std::optional<CountSolution> solution;  // proven optimal within the tolerance
  double bound = 0.0;                     // otherwise: no allocation is worth more than this
};

// The open jobs of `lists` as a shortfall search (shortfall_search.hpp) at the bound's prices.
ShortfallProblem shortfall_problem(const OptionLists& lists, const Decomposition& d,
                                   double cutoff) {
  ShortfallProblem search;
  search.capacity = lists.residual;
  search.price = d.price;
  search.cutoff = cutoff;
  for (std::size_t i = 0; i < lists.open.size(); ++i) {
    const JobOptions& job = lists.open[i];
    const double best = d.responses[lists.open_jobs[i]].best;
    ShortfallOptions options;
    options.counts = job.counts;
    for (std::size_t o = 0; o < job.counts.size(); ++o) {
      double priced = job.value[o];
      for (std::size_t c = 0; c < d.price.size(); ++c) priced -= d.price[c] * job.counts[o][c];
      options.shortfall.push_back(best - priced);
    }
    search.jobs.push_back(std::move(options));
  }
  return search;
}

// Every job's counts: the settled ones', and the open ones' as the search chose.
std::vector<std::vector<int>> chosen_counts(OptionLists& lists, const std::vector<int>& choice) {
  std::vector<std::vector<int>> counts = std::move(lists.settled);
  for (std::size_t i = 0; i < lists.open_jobs.size(); ++i) {
    counts[lists.open_jobs[i]] = lists.open[i].counts[static_cast<std::size_t>(choice[i])];
  }
  return counts;
}

// Exact search for the best allocation by total shortfall (shortfall_search.hpp), deepening:
// first among allocations short of the bound by at most the tolerance, then twice that, up to
// the incumbent's own shortfall. Each search proves a lower bound on the least shortfall (all of
// the cutoff when it finds no allocation), which the next starts from; the first that finds one
// has it within the tolerance of the optimum. Small cutoffs keep the option lists short, and
// optima here fall short of the bound by little (the relaxation's integrality gap).
// Expects the incumbent to fall short of the bound by more than `tolerance`; raises it to the
// best allocation a search found before giving up.
SearchOutcome search_by_shortfall(const ClassedProblem& problem, const Decomposition& d,
                                  Incumbent& incumbent, double tolerance, std::size_t option_budget,
                                  std::chrono::steady_clock::time_point deadline) {
  SearchOutcome out{std::nullopt, d.bound};
  const double gap = d.bound - incumbent.value;
  const double slack = 1e-9 * std::max(1.0, std::abs(d.bound));
  double proven = 0.0;    // no allocation falls short of the bound by less
  double searched = 0.0;  // the largest cutoff searched: nothing within it (beyond `proven`)
  double too_long = std::numeric_limits<double>::infinity();  // least cutoff past the budget
  double cutoff = std::min(tolerance, gap - tolerance);
  while (std::chrono::steady_clock::now() < deadline) {
    std::optional<OptionLists> lists =
        list_options(problem, d, incumbent, cutoff, option_budget, deadline);
    if (!lists) {
      // Too many options within this cutoff (or no time): one halfway from the last searched
      // still proves more, and finds the optimum when its shortfall lies below it.
      too_long = cutoff;
      cutoff = searched + (cutoff - searched) / 2.0;
      if (cutoff - searched <= tolerance) break;
      continue;
    }
    ShortfallResult result;
    result.outcome = ShortfallResult::Outcome::none;  // settled jobs alone overbook a class
    result.lower_bound = cutoff;
    if (fits(lists->residual)) {
      ShortfallProblem search = shortfall_problem(*lists, d, cutoff + slack);
      search.tolerance = tolerance;
      search.lower_bound = proven;
      result = least_shortfall(search, kShortfallBudget, deadline);
    }
    proven = std::max(proven, std::min(result.lower_bound, cutoff));
    out.bound = d.bound - proven;
    if (result.outcome == ShortfallResult::Outcome::gave_up) {
      if (!result.choice.empty()) {
        std::vector<std::vector<int>> counts = chosen_counts(*lists, result.choice);
        if (const double value = total_value(problem, counts); value > incumbent.value) {
          incumbent = {std::move(counts), value};
        }
      }
      break;
    }
    if (result.outcome == ShortfallResult::Outcome::found) {
      std::vector<std::vector<int>> counts = chosen_counts(*lists, result.choice);
      const double value = total_value(problem, counts);
      out.solution =
          proven_optimal(value < incumbent.value ? incumbent.counts : std::move(counts),
                         std::max(out.bound, value));  // (the incumbent only on rounding)
      return out;
    }
    if (cutoff >= gap - tolerance) break;  // nothing better than the incumbent by more
    searched = cutoff;
    cutoff = std::min({2.0 * cutoff, gap - tolerance, searched + (too_long - searched) / 2.0});
  }
  if (out.bound - incumbent.value <= tolerance) {
    out.solution = proven_optimal(incumbent.counts, out.bound);
  }
  return out;
}

// Exact solve. The Lagrangian relaxation gives a bound L and an incumbent Z; an allocation worth
// at least Z is at most L minus every job's shortfall from its best priced option, so only
// options short by at most L - Z can be optimal. Most jobs keep one such option and are settled;
// GLPK solves the multiple-choice MILP over the rest. When too many options survive, a MILP over
// a narrower list (which contains the incumbent) raises Z first, and the list is made again.
CountSolution solve(const ClassedProblem& problem, const SolverOptions& options,
                    std::chrono::steady_clock::time_point deadline) {
  if (problem.jobs.empty() || problem.class_count() == 0) {
    // Nothing to decide: no jobs, or no nodes (and then no job holds any).
    CountSolution nothing;
    nothing.call_status = CallStatus::ok;
    nothing.model_status = ModelStatus::optimal;
    nothing.counts = unchanged_counts(problem);
    return nothing;
  }
  const Decomposition d = decompose(problem, deadline);
  Incumbent incumbent{d.incumbent, d.incumbent_value};
  const auto budget = static_cast<std::size_t>(options.max_core_options);
  const double tolerance = options.mip_gap * std::max(1.0, std::abs(d.bound));
  double bound = d.bound;
  if (d.bound - incumbent.value > tolerance && problem.class_count() > 1) {
    // Half the time left: when the search gives up, GLPK's path below rarely proves optimality
    // but often raises the incumbent (with nine tenths to the search, as many instances were
    // proven and the worst gaps grew up to 25-fold: docs/benchmarks-history.md).
    const auto now = std::chrono::steady_clock::now();
    const auto search_deadline = now + (deadline - now) / 2;
    SearchOutcome searched =
        search_by_shortfall(problem, d, incumbent, tolerance, budget, search_deadline);
    if (searched.solution) return std::move(*searched.solution);
    bound = searched.bound;  // the search gave up (too many states, or time): GLPK's turn
  }
  // Near-ties decide the optimum: the optimal allocation's options are short by L - OPT in
  // total, which is tiny next to L - Z when Z is rough. So a narrow list first.
  double narrow_gap = std::max(tolerance, 1e-9 * std::max(1.0, std::abs(d.bound)));

  if (!d.fractional.empty() && d.bound - incumbent.value > tolerance) {
    // Re-decide the jobs the LP split, all others kept: a small MILP that often reaches the
    // optimum, after which the exact list is short.
    std::vector<bool> open(problem.jobs.size(), false);
    for (std::size_t j : d.fractional) open[j] = true;
    const double gap = d.bound - incumbent.value;
    if (std::optional<OptionLists> lists =
            list_options(problem, d, incumbent, gap, budget, deadline, &open)) {
      raise_incumbent(problem, *lists, options, deadline, incumbent);
    }
  }

  for (int round = 0; round < 16 && std::chrono::steady_clock::now() < deadline; ++round) {
    if (d.bound - incumbent.value > narrow_gap) {
      if (std::optional<OptionLists> narrow =
              list_options(problem, d, incumbent, narrow_gap, budget, deadline)) {
        raise_incumbent(problem, *narrow, options, deadline, incumbent);
      }
      narrow_gap *= 16.0;
    }
    const double gap = std::max(0.0, d.bound - incumbent.value);
    if (gap <= tolerance) break;  // the incumbent is optimal within mip_gap
    if (std::optional<OptionLists> lists =
            list_options(problem, d, incumbent, gap, budget, deadline)) {
      CountSolution exact = solve_lists(problem, *lists, options, deadline);
      if (exact.counts.empty()) break;
      const double value = total_value(problem, exact.counts);
      if (value < incumbent.value) exact.counts = incumbent.counts;
      exact.best_bound =
          exact.model_status == ModelStatus::optimal ? std::max(value, incumbent.value) : bound;
      return exact;
    }
  }
  if (bound - incumbent.value <= tolerance)
    return proven_optimal(std::move(incumbent.counts), bound);
  // The lists stayed too long (solver.max_core_options): the compact model takes the whole
  // problem with the time left, and answers only if it beats the incumbent.
  CountSolution compact;
  if (std::chrono::steady_clock::now() < deadline)
    compact = solve_counts(problem, options, deadline);
  if (!compact.counts.empty() && total_value(problem, compact.counts) >= incumbent.value) {
    return compact;
  }
  CountSolution stopped;
  stopped.call_status = CallStatus::ok;
  stopped.model_status = ModelStatus::time_limit;
  stopped.message = "time limit reached before the gap was closed";
  stopped.counts = std::move(incumbent.counts);
  stopped.best_bound = std::min(bound, compact.counts.empty() ? bound : compact.best_bound);
  return stopped;
}

}  // namespace

AllocationResult allocate(const AllocationProblem& input) {
  const auto start = std::chrono::steady_clock::now();
  validate(input);  // time_limit_s is at most a day: no overflow in nanoseconds below
  // Jobs with a batch range are valued at their goodput (goodput.hpp): the rest of the solve
  // sees plain curves.
  const bool batched = std::any_of(input.jobs.begin(), input.jobs.end(),
                                   [](const AllocatableJob& job) { return job.batch.has_value(); });
  const AllocationProblem valued = batched ? valued_by_goodput(input) : AllocationProblem{};
  const AllocationProblem& problem = batched ? valued : input;
  const auto limit = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(problem.solver.time_limit_s));
  const auto end = start + limit;  // the whole call, whatever the input
  const ClassedProblem classed = classify(problem);
  // time_limit_s bounds the whole call. After the solver stops, its answer is still turned into
  // node names and checked, which costs about what validating and classifying did (10,000 nodes:
  // 3.0 ms after, 4.4 ms before); and the solver's steps read the clock only now and then (the
  // depth-first search every 1,024 visits, the listing every 256 options; GLPK's own overruns are
  // handled in glpk_solve.cpp, where they were measured). So the solver's deadline comes that much,
  // and a fiftieth of the limit, before the limit (already passed when preparing took half).
  const auto prepared = std::chrono::steady_clock::now();
  const auto deadline = end - (prepared - start) - limit / 50;

  CountSolution solution = solve(classed, problem.solver, deadline);
  AllocationResult result;
  result.call_status = solution.call_status;
  result.model_status = solution.model_status;
  result.message = std::move(solution.message);
  // Without an answer from the solver nothing moves: every job keeps its nodes where it may.
  if (result.call_status == CallStatus::error || solution.counts.empty()) {
    solution.counts = unchanged_counts(classed);
  }

  result.allocation = assign_nodes(problem, classed, solution.counts);
  if (const std::optional<std::string> why = infeasibility(problem, result.allocation)) {
    // A defect in the decomposition once produced a grow that dropped held nodes (see
    // tests/data/solve/decomposition-migration.json). Never hand such an answer to Slurm: the
    // compact model is exact on its own, so it decides instead, in what is left of the limit.
    solution = solve_counts(classed, problem.solver, end - (prepared - start));
    if (solution.counts.empty()) solution.counts = unchanged_counts(classed);
    result.allocation = assign_nodes(problem, classed, solution.counts);
    result.model_status = solution.model_status;
    result.message = "the decomposition's answer was infeasible (" + *why +
                     "); the compact model answered instead";
  }
  result.objective = total_value(classed, solution.counts);
  result.best_bound = std::max(solution.best_bound, result.objective);
  result.stats = {solution.size.columns, solution.size.rows, solution.size.integer_columns,
                  solution.core_jobs, static_cast<int>(classed.class_count())};
  result.solve_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace gaptrain::allocator
