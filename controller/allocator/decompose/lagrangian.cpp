#include "allocator/decompose/lagrangian.hpp"

#include <glpk.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <numeric>
#include <optional>

#include "allocator/milp/linear_model.hpp"
#include "allocator/milp/milp.hpp"

namespace gaptrain::allocator {

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

// left[c] += sign * counts[c]: a job giving back (+1) or taking (-1) its nodes.
void move_nodes(std::vector<int>& left, std::span<const int> counts, int sign) {
  for (std::size_t c = 0; c < left.size(); ++c) left[c] += sign * counts[c];
}

// Nodes of each class an allocation leaves unused (negative where it overbooks the class).
std::vector<int> nodes_left(const ClassedProblem& problem,
                            const std::vector<std::vector<int>>& counts) {
  std::vector<int> left = problem.classes.size;
  for (const auto& job_counts : counts) move_nodes(left, job_counts, -1);
  return left;
}

// The local search's best responses, remembered per job by price and nodes available: its
// passes come back to the same prices, and on 100 x 10 instance 12 over half of its calls
// (298 of 560) asked again exactly what one before had asked.
class ResponseMemo {
 public:
  explicit ResponseMemo(std::size_t jobs) : entries_(jobs) {}

  const std::vector<int>& counts(const ClassedProblem& problem, std::size_t j,
                                 std::span<const double> price, std::span<const int> limit) {
    for (const Entry& e : entries_[j]) {
      if (std::equal(price.begin(), price.end(), e.price.begin(), e.price.end()) &&
          std::equal(limit.begin(), limit.end(), e.limit.begin(), e.limit.end())) {
        return e.counts;
      }
    }
    entries_[j].push_back({{price.begin(), price.end()},
                           {limit.begin(), limit.end()},
                           best_response(problem, j, price, limit).counts});
    return entries_[j].back().counts;
  }

 private:
  struct Entry {
    std::vector<double> price;
    std::vector<int> limit;
    std::vector<int> counts;
  };
  std::vector<std::vector<Entry>> entries_;
};

// Lets each job in turn improve its own option, at `price`, with the nodes nobody uses; stops
// at the deadline (every step keeps the allocation feasible; the clock is read every 64 jobs).
void improve(const ClassedProblem& problem, std::span<const double> price, ResponseMemo& memo,
             std::chrono::steady_clock::time_point deadline,
             std::vector<std::vector<int>>& counts) {
  std::vector<int> left = nodes_left(problem, counts);
  for (std::size_t j = 0; j < counts.size(); ++j) {
    if ((j & 63U) == 63U && std::chrono::steady_clock::now() >= deadline) return;
    move_nodes(left, counts[j], +1);
    counts[j] = memo.counts(problem, j, price, left);
    move_nodes(left, counts[j], -1);
  }
}

// Rounds of `improve` at prices from the bound's down to zero: at the bound's prices jobs drop
// nodes worth less than the price, at lower ones others pick them up. At most two rounds (more
// gained little in the benchmarks and cost time), fewer when a round gains nothing; keeps the
// best allocation seen.
void local_search(const ClassedProblem& problem, std::span<const double> price,
                  std::chrono::steady_clock::time_point deadline, ResponseMemo& memo,
                  std::vector<std::vector<int>>& counts) {
  std::vector<std::vector<int>> best = counts;
  double best_value = total_value(problem, counts);
  std::vector<double> scaled(price.size());
  for (int round = 0; round < 2 && std::chrono::steady_clock::now() < deadline; ++round) {
    const double before = best_value;
    for (double factor : {1.0, 0.0, 0.999, 0.0, 0.99, 0.0, 0.9, 0.0}) {
      if (std::chrono::steady_clock::now() >= deadline) break;
      for (std::size_t c = 0; c < price.size(); ++c) scaled[c] = factor * price[c];
      improve(problem, scaled, memo, deadline, counts);
      if (const double value = total_value(problem, counts); value > best_value) {
        best_value = value;
        best = counts;
      }
    }
    if (best_value <= before) break;
  }
  counts = std::move(best);
}

// A feasible allocation near the priced optimum when the priced choices overbook a class: jobs
// pick their best priced option within what is left, most valuable first.
std::vector<std::vector<int>> repair(const ClassedProblem& problem, std::span<const double> price,
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
    move_nodes(left, counts[j], -1);
  }
  return counts;
}

// Makes an allocation fit the class sizes: jobs (those in `first` before the others, each group
// last first) give up their option for their best one within what is left until nothing is
// overbooked.
void fit_within_supply(const ClassedProblem& problem, std::span<const std::size_t> first,
                       std::vector<std::vector<int>>& counts) {
  std::vector<int> left = nodes_left(problem, counts);
  const std::vector<double> free(problem.class_count(), 0.0);
  std::vector<std::size_t> order(first.rbegin(), first.rend());
  for (std::size_t j = counts.size(); j-- > 0;) order.push_back(j);
  for (std::size_t j : order) {
    if (std::all_of(left.begin(), left.end(), [](int n) { return n >= 0; })) return;
    bool overbooks = false;
    for (std::size_t c = 0; c < left.size(); ++c) overbooks |= left[c] < 0 && counts[j][c] > 0;
    if (!overbooks) continue;
    move_nodes(left, counts[j], +1);
    std::vector<int> limit(left.size());
    for (std::size_t c = 0; c < left.size(); ++c) limit[c] = std::max(0, left[c]);
    counts[j] = best_response(problem, j, free, limit).counts;
    move_nodes(left, counts[j], -1);
  }
}

std::vector<std::vector<int>> options_of(const std::vector<JobResponse>& responses) {
  std::vector<std::vector<int>> counts;
  counts.reserve(responses.size());
  for (const JobResponse& r : responses) counts.push_back(r.counts);
  return counts;
}

// Column generation on the convex-hull LP of the jobs' options, whose optimum is the best
// Lagrangian bound: GLPK's duals of the class rows are the next prices, and each job's best
// response at those prices is its most promising new column. Every price vector visited gives a
// valid bound; the lowest is kept in `best`.
struct ColumnGeneration {
  std::vector<std::vector<int>> rounded;  // per job: its column with the largest LP weight
  std::vector<std::size_t> fractional;    // jobs whose LP weight is split between columns
};

ColumnGeneration refine_by_column_generation(const ClassedProblem& problem,
                                             std::chrono::steady_clock::time_point deadline,
                                             const std::vector<std::vector<int>>& incumbent,
                                             Evaluation& best, std::vector<double>& best_price) {
  const std::size_t jobs = problem.jobs.size();
  const std::size_t classes = problem.class_count();
  std::unique_ptr<glp_prob, GlpkProblemDeleter> lp(glp_create_prob());
  glp_set_obj_dir(lp.get(), GLP_MAX);
  glp_add_rows(lp.get(), static_cast<int>(jobs + classes));
  for (std::size_t j = 0; j < jobs; ++j)
    glp_set_row_bnds(lp.get(), static_cast<int>(j + 1), GLP_FX, 1, 1);
  for (std::size_t c = 0; c < classes; ++c) {
    glp_set_row_bnds(lp.get(), static_cast<int>(jobs + c + 1), GLP_UP, 0, problem.classes.size[c]);
  }
  std::vector<std::vector<std::vector<int>>> generated(jobs);
  std::vector<std::pair<std::size_t, std::size_t>> column_owner{{0, 0}};  // 1-based columns
  auto add_option = [&](std::size_t j, std::span<const int> counts) {
    column_owner.emplace_back(j, generated[j].size());
    generated[j].emplace_back(counts.begin(), counts.end());
    const int column = glp_add_cols(lp.get(), 1);
    glp_set_col_bnds(lp.get(), column, GLP_LO, 0, 0);
    glp_set_obj_coef(lp.get(), column, job_value(problem, j, counts));
    std::vector<int> rows{0, static_cast<int>(j + 1)};
    std::vector<double> values{0.0, 1.0};
    for (std::size_t c = 0; c < classes; ++c) {
      if (counts[c] == 0) continue;
      rows.push_back(static_cast<int>(jobs + c + 1));
      values.push_back(counts[c]);
    }
    glp_set_mat_col(lp.get(), column, static_cast<int>(rows.size() - 1), rows.data(),
                    values.data());
  };
  // Off always fits, so the master is feasible from the start.
  const std::vector<int> off(classes, 0);
  for (std::size_t j = 0; j < jobs; ++j) {
    add_option(j, off);
    if (incumbent[j] != off) add_option(j, incumbent[j]);
    if (best.responses[j].counts != off && best.responses[j].counts != incumbent[j]) {
      add_option(j, best.responses[j].counts);
    }
  }

  glp_smcp simplex;
  glp_init_smcp(&simplex);
  simplex.msg_lev = GLP_MSG_OFF;
  const double tolerance = 1e-9 * std::max(1.0, std::abs(best.bound));
  std::vector<double> price(classes);
  for (int round = 0; round < 200 && std::chrono::steady_clock::now() < deadline; ++round) {
    // (GLPK's own limit: a master of 30,000 jobs' rows is no quick LP.)
    simplex.tm_lim = static_cast<int>(std::max<std::int64_t>(
        1, std::chrono::duration_cast<std::chrono::milliseconds>(deadline -
                                                                 std::chrono::steady_clock::now())
               .count()));
    if (glp_simplex(lp.get(), &simplex) != 0 || glp_get_status(lp.get()) != GLP_OPT) break;
    const double master = glp_get_obj_val(lp.get());
    if (best.bound - master <= tolerance) break;  // the bound is proven tight
    // Wentges smoothing: price between the LP's duals and the best prices so far, which damps
    // the duals' oscillation (and the tailing-off of plain column generation).
    for (std::size_t c = 0; c < classes; ++c) {
      const double dual = std::max(0.0, glp_get_row_dual(lp.get(), static_cast<int>(jobs + c + 1)));
      price[c] = 0.5 * best_price[c] + 0.5 * dual;
    }
    Evaluation e = evaluate_prices(problem, price);
    bool added = false;
    for (std::size_t j = 0; j < jobs; ++j) {
      double reduced = e.responses[j].best - glp_get_row_dual(lp.get(), static_cast<int>(j + 1));
      for (std::size_t c = 0; c < classes; ++c) {
        const double dual = glp_get_row_dual(lp.get(), static_cast<int>(jobs + c + 1));
        reduced += (price[c] - dual) * e.responses[j].counts[c];
      }
      if (reduced > tolerance) {
        add_option(j, e.responses[j].counts);
        added = true;
      }
    }
    if (e.bound < best.bound) {
      best = std::move(e);
      best_price = price;
    } else if (!added) {
      // A mis-priced step: fall back to the pure duals next time.
      for (std::size_t c = 0; c < classes; ++c) {
        best_price[c] = 0.5 * best_price[c] + 0.5 * price[c];
      }
    }
  }
  // Few jobs are fractional in a basic solution (at most one per class row): round each job to
  // its heaviest column; the caller repairs what that overbooks.
  // Built filled rather than assign()ed: GCC 16 took assign's clean-up of the (empty) old
  // contents for a possible null dereference (-Wnull-dereference, an error with -Werror).
  ColumnGeneration out{std::vector<std::vector<int>>(jobs, off), {}};
  std::vector<double> weight(jobs, -1.0);
  for (int column = 1; column <= glp_get_num_cols(lp.get()); ++column) {
    const auto [j, option] = column_owner[static_cast<std::size_t>(column)];
    if (const double x = glp_get_col_prim(lp.get(), column); x > weight[j]) {
      weight[j] = x;
      out.rounded[j] = generated[j][option];
    }
  }
  for (std::size_t j = 0; j < jobs; ++j) {
    if (weight[j] < 1.0 - 1e-9) out.fractional.push_back(j);
  }
  return out;
}

}  // namespace

Decomposition decompose(const ClassedProblem& problem,
                        std::chrono::steady_clock::time_point deadline) {
  // 1. One price factor, by bisection on the availability-weighted excess demand (the
  //    derivative of the bound along that direction): exact for a single class.
  double low = 0.0;
  Evaluation best = evaluate_prices(problem, scaled_prices(problem, 0.0));
  std::vector<double> best_price = scaled_prices(problem, 0.0);
  // The cheapest prices seen at which the jobs' own choices fit: a near-optimal incumbent.
  std::optional<Evaluation> fitting;
  if (within_supply(best)) fitting = best;
  // Every price gives a bound, so the search may stop at the deadline with a weaker one: each
  // evaluation visits every job (30,000 jobs: tens of milliseconds each, and up to 40 of them).
  const auto time_left = [deadline] { return std::chrono::steady_clock::now() < deadline; };
  if (weighted_excess(problem, best) > 0.0) {
    double high = 1.0;
    while (time_left() &&
           weighted_excess(problem, evaluate_prices(problem, scaled_prices(problem, high))) > 0.0 &&
           high < 1e300) {
      low = high;
      high *= 4.0;
    }
    for (int i = 0; i < 40 && high - low > 1e-9 * high && time_left(); ++i) {
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
  std::vector<std::vector<std::vector<int>>> candidates{
      repair(problem, best_price, best.responses)};
  if (fitting) candidates.push_back(options_of(fitting->responses));
  out.incumbent_value = -std::numeric_limits<double>::infinity();
  ResponseMemo memo(problem.jobs.size());
  for (auto& candidate : candidates) {
    local_search(problem, best_price, deadline, memo, candidate);
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

  // 2. With several classes one factor is not enough: refine the prices by column generation.
  if (problem.class_count() > 1) {
    ColumnGeneration cg =
        refine_by_column_generation(problem, deadline, out.incumbent, best, best_price);
    // Two ways to settle what the rounding overbooks: re-decide the split jobs first, or the
    // jobs in reverse order. Neither wins always; both are cheap.
    for (const bool split_first : {true, false}) {
      std::vector<std::vector<int>> candidate = cg.rounded;
      fit_within_supply(problem,
                        split_first ? std::span<const std::size_t>(cg.fractional)
                                    : std::span<const std::size_t>(),
                        candidate);
      local_search(problem, best_price, deadline, memo, candidate);
      if (const double v = total_value(problem, candidate); v > out.incumbent_value) {
        out.incumbent = std::move(candidate);
        out.incumbent_value = v;
      }
    }
    out.fractional = std::move(cg.fractional);
  }

  out.price = std::move(best_price);
  out.bound = best.bound;
  out.responses = std::move(best.responses);
  return out;
}

}  // namespace gaptrain::allocator
