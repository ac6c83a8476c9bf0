#include "allocator/milp/glpk_solve.hpp"

#include <glpk.h>

#include <algorithm>
#include <memory>
#include <optional>

namespace gaptrain::allocator {

namespace {

struct SearchState {
  const std::vector<double>* start = nullptr;
  bool offered = false;
  double best_bound = LinearModel::kInfinity;
  std::chrono::steady_clock::time_point deadline;
  std::optional<std::chrono::steady_clock::time_point> last_event;
  std::chrono::steady_clock::duration longest_step{};  // between two events so far
};

// GLPK calls this during branch-and-cut: we offer the caller's incumbent once, so the search can
// prune from the start and a time limit always leaves a solution, and we remember the best bound
// so a time-limited answer can say how far from optimal it may be. GLPK reads its own time limit
// only before a node's LP, and choosing a branch (Driebeck-Tomlin: a tableau row per fractional
// column) then ran up to 25 ms past it in 5,000 x 500 cores; so the search stops as soon as the
// longest step seen between two events would no longer fit before the deadline.
void on_search_event(glp_tree* tree, void* info) {
  auto* state = static_cast<SearchState*>(info);
  if (glp_ios_reason(tree) == GLP_IHEUR && !state->offered && !state->start->empty()) {
    state->offered = true;
    glp_ios_heur_sol(tree, state->start->data());
  }
  if (const int best = glp_ios_best_node(tree); best != 0) {
    state->best_bound = glp_ios_node_bound(tree, best);
  }
  const auto now = std::chrono::steady_clock::now();
  if (state->last_event)
    state->longest_step = std::max(state->longest_step, now - *state->last_event);
  state->last_event = now;
  if (now + state->longest_step >= state->deadline) glp_ios_terminate(tree);
}

int milliseconds_until(std::chrono::steady_clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      deadline - std::chrono::steady_clock::now());
  return static_cast<int>(std::clamp<long long>(left.count(), 1, 1'000'000'000));
}

}  // namespace

GlpkOutcome solve_with_glpk(const LinearModel& model, const std::vector<double>& start,
                            double mip_gap, SimplexMethod method,
                            std::chrono::steady_clock::time_point deadline) {
  GlpkOutcome outcome;
  // Building and scaling GLPK's copy of the model cannot be interrupted and takes about 0.5 us
  // per row and column (65 ms for the 79,209 rows and 56,318 columns of a 10,000 x 1,000 compact
  // model, 16 ms for 25,700 columns); with less than twice that left, do not start.
  const auto setup = std::chrono::nanoseconds(1000LL * (model.rows() + model.columns()));
  if (std::chrono::steady_clock::now() + setup >= deadline) {
    // GLPK's time limit is checked between iterations, and a relaxation can take long before the
    // first check: without the time to set it up, do not start at all.
    outcome.call_status = CallStatus::ok;
    outcome.model_status = ModelStatus::time_limit;
    outcome.message = "time limit reached before the MILP was solved";
    return outcome;
  }
  const auto building = std::chrono::steady_clock::now();
  std::unique_ptr<glp_prob, GlpkProblemDeleter> lp(model.to_glpk());
  glp_term_out(GLP_OFF);  // glp_scale_prob prints its statistics otherwise
  glp_scale_prob(lp.get(), GLP_SF_AUTO);
  // GLPK's simplex returns a fixed time after its tm_lim: on a 79,209-row compact model of
  // 10,000 x 1,000, 30-34 ms (tm_lim 50 -> 82, 100 -> 130, 400 -> 434 ms). That grows with the
  // model as building and scaling it does (65 ms there), so GLPK's limits end that much before
  // the deadline.
  deadline -= std::chrono::steady_clock::now() - building;

  glp_smcp simplex;
  glp_init_smcp(&simplex);
  simplex.msg_lev = GLP_MSG_OFF;
  simplex.meth = method == SimplexMethod::dual ? GLP_DUALP : GLP_PRIMAL;
  simplex.tm_lim = milliseconds_until(deadline);
  const int simplex_rc = glp_simplex(lp.get(), &simplex);
  if (simplex_rc == GLP_ETMLIM) {
    outcome.call_status = CallStatus::ok;
    outcome.model_status = ModelStatus::time_limit;
    outcome.message = "time limit reached in the LP relaxation";
    return outcome;
  }
  if (simplex_rc != 0 || glp_get_status(lp.get()) != GLP_OPT) {
    outcome.message = "GLPK simplex failed (code " + std::to_string(simplex_rc) + ")";
    return outcome;
  }
  const double relaxation = glp_get_obj_val(lp.get());

  SearchState state;
  state.start = &start;
  state.deadline = deadline;
  glp_iocp search;
  glp_init_iocp(&search);
  search.msg_lev = GLP_MSG_OFF;
  search.mip_gap = mip_gap;
  search.tm_lim = milliseconds_until(deadline);
  search.cb_func = on_search_event;
  search.cb_info = &state;
  const int search_rc = glp_intopt(lp.get(), &search);
  const int mip_status = glp_mip_status(lp.get());
  outcome.call_status = CallStatus::ok;
  if (mip_status == GLP_OPT || (mip_status == GLP_FEAS && search_rc == GLP_EMIPGAP)) {
    outcome.model_status = ModelStatus::optimal;
  } else if (mip_status == GLP_FEAS && (search_rc == GLP_ETMLIM || search_rc == GLP_ESTOP)) {
    outcome.model_status = ModelStatus::time_limit;
    outcome.message = "time limit reached in branch-and-cut";
  } else if (mip_status == GLP_NOFEAS) {
    outcome.model_status = ModelStatus::infeasible;
    return outcome;
  } else {
    outcome.call_status = CallStatus::error;
    outcome.message = "GLPK branch-and-cut failed (code " + std::to_string(search_rc) + ")";
    return outcome;
  }
  outcome.values.resize(static_cast<std::size_t>(model.columns()) + 1);
  for (int j = 1; j <= model.columns(); ++j) {
    outcome.values[static_cast<std::size_t>(j)] = glp_mip_col_val(lp.get(), j);
  }
  outcome.best_bound = outcome.model_status == ModelStatus::optimal
                           ? glp_mip_obj_val(lp.get())
                           : std::min(state.best_bound, relaxation);
  return outcome;
}

}  // namespace gaptrain::allocator
