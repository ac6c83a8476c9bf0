#include "allocator/lagrangian.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <limits>
#include <optional>
#include <cstdio>
#include <cstdlib>

#include "allocator/milp.hpp"

namespace gaptrain {

namespace {

struct Evaluation {
  double bound = 0.0;
  std::vector<JobResponse> responses;
  std::vector<double> excess;  // per class: nodes demanded minus nodes there are
};

Evaluation evaluate_prices(const ClassedProblem& problem, std::span<const double> price) {
  Evaluation out;
  const std::size_t classes = problem.class_count();
  out.excess.assign(classes, 0.0);
  for (std::size_t c = 0; c < classes; ++c) {
    out.bound += price[c] * problem.classes.size[c];
    out.excess[c] = -problem.classes.size[c];
  }
  out.responses.reserve(problem.jobs.size());
  for (std::size_t j = 0; j < problem.jobs.size(); ++j) {
    JobResponse response = best_response(problem, j, price, problem.classes.size);
    out.bound += response.best;
    for (std::size_t c = 0; c < classes; ++c) out.excess[c] += response.counts[c];
    out.responses.push_back(std::move(response));
  }
  return out;
}

// Prices proportional to how long each class stays available, scaled by one factor.
std::vector<double> scaled_prices(const ClassedProblem& problem, double factor) {
  std::vector<double> price(problem.class_count());
  const double longest = problem.classes.end_s.back();
  for (std::size_t c = 0; c < price.size(); ++c) {
    price[c] = longest > 0.0 ? factor * problem.classes.end_s[c] / longest : factor;
  }
  return price;
}

double weighted_excess(const ClassedProblem& problem, const Evaluation& e) {
  double sum = 0.0;
  const double longest = problem.classes.end_s.back();
  for (std::size_t c = 0; c < e.excess.size(); ++c) {
    sum += e.excess[c] * (longest > 0.0 ? problem.classes.end_s[c] / longest : 1.0);
  }
  return sum;
}

bool within_supply(const Evaluation& e) {
  return std::all_of(e.excess.begin(), e.excess.end(), [](double x) { return x <= 0.0; });
}

// Lets each job in turn improve its own option, at `price`, with the nodes nobody uses.
void improve(const ClassedProblem& problem, std::span<const double> price,
             std::vector<std::vector<int>>& counts) {
  std::vector<int> left = problem.classes.size;
  for (const auto& job_counts : counts) {
    for (std::size_t c = 0; c < left.size(); ++c) left[c] -= job_counts[c];
  }
  for (std::size_t j = 0; j < counts.size(); ++j) {
    for (std::size_t c = 0; c < left.size(); ++c) left[c] += counts[j][c];
    counts[j] = best_response(problem, j, price, left).counts;
    for (std::size_t c = 0; c < left.size(); ++c) left[c] -= counts[j][c];
  }
}

// A feasible allocation near the priced optimum when the priced choices overbook a class: jobs
// pick their best priced option within what is left, most valuable first.
std::vector<std::vector<int>> repair(const ClassedProblem& problem,
                                     std::span<const double> price,
                                     const std::vector<JobResponse>& responses) {
  std::vector<std::size_t> order(problem.jobs.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return responses[a].best > responses[b].best;
  });
  std::vector<int> left = problem.classes.size;
  std::vector<std::vector<int>> counts(problem.jobs.size());
  for (std::size_t j : order) {
    counts[j] = best_response(problem, j, price, left).counts;
    for (std::size_t c = 0; c < left.size(); ++c) left[c] -= counts[j][c];
  }
  return counts;
}

std::vector<std::vector<int>> options_of(const std::vector<JobResponse>& responses) {
  std::vector<std::vector<int>> counts;
  counts.reserve(responses.size());
  for (const JobResponse& r : responses) counts.push_back(r.counts);
  return counts;
}

double total_value(const ClassedProblem& problem, const std::vector<std::vector<int>>& counts) {
  double sum = 0.0;
  for (std::size_t j = 0; j < counts.size(); ++j) sum += job_value(problem, j, counts[j]);
  return sum;
}

}  // namespace

Decomposition decompose(const ClassedProblem& problem) {
  // 1. One price factor, by bisection on the availability-weighted excess demand (the
  //    derivative of the bound along that direction): exact for a single class.
  double low = 0.0;
  Evaluation best = evaluate_prices(problem, scaled_prices(problem, 0.0));
  std::vector<double> best_price = scaled_prices(problem, 0.0);
  // The cheapest prices seen at which the jobs' own choices fit: a near-optimal incumbent.
  std::optional<Evaluation> fitting;
  if (within_supply(best)) fitting = best;
  if (weighted_excess(problem, best) > 0.0) {
    double high = 1.0;
    while (weighted_excess(problem, evaluate_prices(problem, scaled_prices(problem, high))) > 0.0 &&
           high < 1e300) {
      low = high;
      high *= 4.0;
    }
    for (int i = 0; i < 40 && high - low > 1e-9 * high; ++i) {
      const double mid = 0.5 * (low + high);
      Evaluation e = evaluate_prices(problem, scaled_prices(problem, mid));
      const double slope = weighted_excess(problem, e);
      if (within_supply(e)) fitting = e;
      if (e.bound < best.bound) {
        best = e;
        best_price = scaled_prices(problem, mid);
      }
      (slope > 0.0 ? low : high) = mid;
    }
    Evaluation e = evaluate_prices(problem, scaled_prices(problem, high));
    if (within_supply(e)) fitting = e;
    if (e.bound < best.bound) {
      best = std::move(e);
      best_price = scaled_prices(problem, high);
    }
  }

  Decomposition out;
  // Candidates: the fitting choices, and the priced choices repaired; each then improved at the
  // bound's prices (nodes to jobs worth the price) and for free (whatever is left).
  const std::vector<double> free(problem.class_count(), 0.0);
  std::vector<std::vector<std::vector<int>>> candidates{repair(problem, best_price, best.responses)};
  if (fitting) candidates.push_back(options_of(fitting->responses));
  out.incumbent_value = -std::numeric_limits<double>::infinity();
  for (auto& candidate : candidates) {
    improve(problem, best_price, candidate);
    improve(problem, free, candidate);
    if (const double v = total_value(problem, candidate); v > out.incumbent_value) {
      out.incumbent_value = v;
      out.incumbent = std::move(candidate);
    }
  }
  const std::vector<std::vector<int>> unchanged = unchanged_counts(problem);
  if (const double v = total_value(problem, unchanged); v > out.incumbent_value) {
    out.incumbent = unchanged;
    out.incumbent_value = v;
  }

  // 2. With several classes, refine the prices class by class (projected subgradient with
  //    Polyak steps towards the incumbent); any price vector gives a valid bound.
  std::vector<double> price = best_price;
  Evaluation current = best;
  for (int iteration = 0; problem.class_count() > 1 && iteration < 12; ++iteration) {
    double norm = 0.0;
    for (double g : current.excess) norm += g * g;
    const double gap = current.bound - out.incumbent_value;
    if (norm == 0.0 || gap <= 0.0) break;
    for (std::size_t c = 0; c < price.size(); ++c) {
      price[c] = std::max(0.0, price[c] + gap / norm * current.excess[c]);
    }
    current = evaluate_prices(problem, price);
    if (current.bound < best.bound) {
      best = current;
      best_price = price;
    }
  }

  out.price = std::move(best_price);
  out.bound = best.bound;
  out.responses = std::move(best.responses);
  return out;
}

}  // namespace gaptrain
