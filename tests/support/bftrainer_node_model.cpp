#include "support/bftrainer_node_model.hpp"

#include <glpk.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
#include <stdexcept>
#include <unordered_map>

namespace gaptrain::test_support {

namespace {

struct ProblemDeleter {
  void operator()(glp_prob* p) const { glp_delete_prob(p); }
};

// Sparse matrix in GLPK's 1-based triplet form.
struct Triplets {
  std::vector<int> rows{0};
  std::vector<int> columns{0};
  std::vector<double> values{0.0};
  void add(int row, int column, double value) {
    rows.push_back(row);
    columns.push_back(column);
    values.push_back(value);
  }
};

int add_binary(glp_prob* lp, double cost) {
  const int column = glp_add_cols(lp, 1);
  glp_set_col_kind(lp, column, GLP_BV);
  glp_set_obj_coef(lp, column, cost);
  return column;
}

int add_row(glp_prob* lp, int type, double lower, double upper) {
  const int row = glp_add_rows(lp, 1);
  glp_set_row_bnds(lp, row, type, lower, upper);
  return row;
}

double hole_or_infinity(const allocator::AllocatableNode& node) {
  return node.hole_end_s ? *node.hole_end_s : std::numeric_limits<double>::infinity();
}

struct BoundTracker {
  double bound = std::numeric_limits<double>::quiet_NaN();
};

void track_bound(glp_tree* tree, void* info) {
  auto* tracker = static_cast<BoundTracker*>(info);
  const int best = glp_ios_best_node(tree);
  if (best != 0) tracker->bound = glp_ios_node_bound(tree, best);
}

}  // namespace

double rate(const allocator::AllocatableJob& job, const allocator::AllocationProblem& problem,
            int nodes) {
  if (nodes <= 0) return 0.0;
  const double one = job.curve.at(1.0);
  const double s = job.curve.at(static_cast<double>(nodes));
  switch (problem.objective) {
    case allocator::Objective::throughput: return s;
    case allocator::Objective::speedup: return one > 0.0 ? s / one : 0.0;
    case allocator::Objective::fair:
      return one > 0.0 ? allocator::fair_value(s / one, job.weight, problem.fair_p) : 0.0;
  }
  return 0.0;
}

std::vector<double> rate_table(const allocator::AllocatableJob& job,
                               const allocator::AllocationProblem& problem) {
  std::vector<double> rates;
  for (int k = 0; k <= job.max_nodes; ++k) rates.push_back(rate(job, problem, k));
  return rates;
}

NodeModelResult solve_bftrainer_node_model(const allocator::AllocationProblem& problem,
                                           double time_limit_s, double mip_gap) {
  const auto start = std::chrono::steady_clock::now();
  const std::size_t node_count = problem.nodes.size();
  const std::size_t job_count = problem.jobs.size();

  std::unordered_map<std::string, std::size_t> job_index;
  for (std::size_t j = 0; j < job_count; ++j) job_index.emplace(problem.jobs[j].id, j);
  std::vector<std::ptrdiff_t> holder(node_count, -1);  // job index holding node n now, or -1
  std::vector<int> held(job_count, 0);
  std::vector<std::ptrdiff_t> batch(job_count, -1);  // node index of b_j
  for (std::size_t n = 0; n < node_count; ++n) {
    const allocator::AllocatableNode& node = problem.nodes[n];
    if (!node.job) continue;
    const std::size_t j = job_index.at(*node.job);
    holder[n] = static_cast<std::ptrdiff_t>(j);
    ++held[j];
    const allocator::AllocatableJob& job = problem.jobs[j];
    const bool named = job.batch_host && *job.batch_host == node.name;
    const bool longer =
        !job.batch_host &&
        (batch[j] < 0 || hole_or_infinity(node) >
                             hole_or_infinity(problem.nodes[static_cast<std::size_t>(batch[j])]));
    if (named || longer) batch[j] = static_cast<std::ptrdiff_t>(n);
  }

  glp_term_out(GLP_OFF);
  std::unique_ptr<glp_prob, ProblemDeleter> owner(glp_create_prob());
  glp_prob* lp = owner.get();
  glp_set_obj_dir(lp, GLP_MAX);
  Triplets a;

  // Rows for "each node in at most one job" come first: row n+1 is node n.
  if (node_count > 0) glp_add_rows(lp, static_cast<int>(node_count));
  for (std::size_t n = 0; n < node_count; ++n) {
    glp_set_row_bnds(lp, static_cast<int>(n) + 1, GLP_UP, 0.0, 1.0);
  }

  std::vector<std::vector<int>> x(job_count, std::vector<int>(node_count, 0));
  for (std::size_t j = 0; j < job_count; ++j) {
    const allocator::AllocatableJob& job = problem.jobs[j];
    const std::vector<double> v = rate_table(job, problem);
    const int c = held[j];
    const double r = c >= job.min_nodes ? rate(job, problem, c) : 0.0;

    const int on = add_binary(lp, 0.0);
    const int grew = add_binary(lp, -job.up_cost_s * r);
    const int shrank = add_binary(lp, -job.down_cost_s * r);

    const int count_row = add_row(lp, GLP_FX, 0.0, 0.0);  // sum_n x - sum_k k*u = 0
    const int min_row = add_row(lp, GLP_LO, 0.0, 0.0);    // sum_n x - min*on >= 0
    const int max_row = add_row(lp, GLP_UP, 0.0, 0.0);    // sum_n x - max*on <= 0
    a.add(min_row, on, -static_cast<double>(job.min_nodes));
    a.add(max_row, on, -static_cast<double>(job.max_nodes));
    const int one_hot_row = add_row(lp, GLP_FX, 1.0, 1.0);  // sum_k u = 1
    for (int k = 0; k <= job.max_nodes; ++k) {
      const int u = add_binary(lp, problem.horizon_s * v[static_cast<std::size_t>(k)]);
      a.add(one_hot_row, u, 1.0);
      if (k > 0) a.add(count_row, u, -static_cast<double>(k));
    }
    const int direction_row = add_row(lp, GLP_UP, 0.0, 1.0);  // grew + shrank <= 1
    a.add(direction_row, grew, 1.0);
    a.add(direction_row, shrank, 1.0);

    for (std::size_t n = 0; n < node_count; ++n) {
      const int column = add_binary(lp, 0.0);
      x[j][n] = column;
      a.add(static_cast<int>(n) + 1, column, 1.0);
      a.add(count_row, column, 1.0);
      a.add(min_row, column, 1.0);
      a.add(max_row, column, 1.0);
      if (holder[n] == static_cast<std::ptrdiff_t>(j)) {
        const int keep = add_row(lp, GLP_LO, 1.0, 0.0);  // x + shrank >= 1
        a.add(keep, column, 1.0);
        a.add(keep, shrank, 1.0);
      } else {
        const int take = add_row(lp, GLP_UP, 0.0, 0.0);  // x - grew <= 0
        a.add(take, column, 1.0);
        a.add(take, grew, -1.0);
      }
    }
    if (batch[j] >= 0) {
      const int keep_batch = add_row(lp, GLP_LO, 0.0, 0.0);  // x[j,b] - on >= 0
      a.add(keep_batch, x[j][static_cast<std::size_t>(batch[j])], 1.0);
      a.add(keep_batch, on, -1.0);
    }
  }
  glp_load_matrix(lp, static_cast<int>(a.values.size()) - 1, a.rows.data(), a.columns.data(),
                  a.values.data());

  NodeModelResult result;
  result.rows = glp_get_num_rows(lp);
  result.columns = glp_get_num_cols(lp);
  result.binaries = glp_get_num_bin(lp);

  BoundTracker tracker;
  glp_iocp parm;
  glp_init_iocp(&parm);
  parm.msg_lev = GLP_MSG_OFF;
  parm.presolve = GLP_ON;
  parm.mip_gap = mip_gap;
  parm.tm_lim = static_cast<int>(std::clamp(time_limit_s * 1000.0, 1.0, 2.0e9));
  parm.cb_func = track_bound;
  parm.cb_info = &tracker;
  const int code = glp_intopt(lp, &parm);
  if (code != 0 && code != GLP_ETMLIM && code != GLP_EMIPGAP) {
    throw std::runtime_error("BFTrainer node model: glp_intopt failed with code " +
                             std::to_string(code));
  }
  const int status = glp_mip_status(lp);
  result.timed_out = code == GLP_ETMLIM;
  result.has_solution = status == GLP_OPT || status == GLP_FEAS;
  result.optimal = status == GLP_OPT || (status == GLP_FEAS && code == GLP_EMIPGAP);
  if (result.has_solution) result.objective = glp_mip_obj_val(lp);
  if (result.optimal) {
    result.best_bound = result.objective;
  } else {
    result.best_bound =
        std::isnan(tracker.bound) ? std::numeric_limits<double>::infinity() : tracker.bound;
  }

  for (std::size_t j = 0; j < job_count; ++j) {
    std::vector<std::size_t> chosen;
    if (result.has_solution) {
      for (std::size_t n = 0; n < node_count; ++n) {
        if (glp_mip_col_val(lp, x[j][n]) > 0.5) chosen.push_back(n);
      }
    }
    // Batch host first: the kept one, or for a new job the node with the longest hole.
    auto first = chosen.begin();
    for (auto it = chosen.begin(); it != chosen.end(); ++it) {
      if (batch[j] >= 0) {
        if (static_cast<std::ptrdiff_t>(*it) == batch[j]) first = it;
      } else if (hole_or_infinity(problem.nodes[*it]) > hole_or_infinity(problem.nodes[*first])) {
        first = it;
      }
    }
    if (first != chosen.end()) std::rotate(chosen.begin(), first, first + 1);
    std::vector<std::string>& names = result.allocation[problem.jobs[j].id];
    for (std::size_t n : chosen) names.push_back(problem.nodes[n].name);
  }
  result.solve_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace gaptrain::test_support
