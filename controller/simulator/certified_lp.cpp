#include "simulator/certified_lp.hpp"

#include <glpk.h>

#include <algorithm>
#include <cmath>
#include <memory>

namespace gaptrain::sim {

namespace {

// The interior point answer is kept when its certificate lies this close (relative) above its
// objective, or when the problem has more rows than the simplex solves in seconds; else the
// simplex runs too (GLPK's took ~2 minutes at 27,000 rows of the per-job relaxation).
constexpr double kInteriorGap = 1e-4;
constexpr int kMostSimplexRows = 5'000;

struct ProblemDeleter {
  void operator()(glp_prob* p) const { glp_delete_prob(p); }
};

// Row and column factors (powers of two, so scaling itself rounds nothing) that bring the
// matrix's entries near 1: a few passes of geometric-mean scaling. The bound's raw units
// (samples ~1e10 beside seconds ~1e2) otherwise stall the interior point method.
double power_of_two(double x) {
  return std::ldexp(1.0, static_cast<int>(std::lround(std::log2(x))));
}

struct Scaling {
  std::vector<double> row;
  std::vector<double> column;
};

Scaling geometric_scaling(int rows, int columns, const std::vector<int>& term_row,
                          const std::vector<int>& term_column, const std::vector<double>& value) {
  Scaling s{std::vector<double>(static_cast<std::size_t>(rows), 1.0),
            std::vector<double>(static_cast<std::size_t>(columns), 1.0)};
  for (int pass = 0; pass < 8; ++pass) {
    for (int side = 0; side < 2; ++side) {
      std::vector<double>& factor = side == 0 ? s.row : s.column;
      const std::vector<int>& index = side == 0 ? term_row : term_column;
      std::vector<double> low(factor.size(), HUGE_VAL);
      std::vector<double> high(factor.size(), 0.0);
      for (std::size_t k = 0; k < value.size(); ++k) {
        if (value[k] == 0.0) continue;
        const double v = std::fabs(value[k]) * s.row[static_cast<std::size_t>(term_row[k])] *
                         s.column[static_cast<std::size_t>(term_column[k])];
        const auto i = static_cast<std::size_t>(index[k]);
        low[i] = std::min(low[i], v);
        high[i] = std::max(high[i], v);
      }
      for (std::size_t i = 0; i < factor.size(); ++i)
        if (high[i] > 0.0) factor[i] *= power_of_two(1.0 / std::sqrt(low[i] * high[i]));
    }
  }
  return s;
}

// The trivial bound: every column at its upper bound where its objective is positive.
double trivial_bound(const std::vector<double>& objective, const std::vector<double>& upper) {
  double bound = 0.0;
  for (std::size_t j = 0; j < objective.size(); ++j)
    bound += std::max(0.0, objective[j]) * upper[j];
  return bound;
}

}  // namespace

int CertifiedLp::add_column(double objective, double upper) {
  objective_.push_back(objective);
  column_upper_.push_back(std::max(0.0, upper));
  return columns() - 1;
}

int CertifiedLp::add_row(double upper) {
  row_upper_.push_back(upper);
  return rows() - 1;
}

void CertifiedLp::add_term(int row, int column, double coefficient) {
  term_row_.push_back(row);
  term_column_.push_back(column);
  term_value_.push_back(coefficient);
}

CertifiedLp::Answer CertifiedLp::maximize() const {
  Answer answer;
  answer.bound = trivial_bound(objective_, column_upper_);
  if (columns() == 0) {
    answer.solved = true;
    return answer;
  }
  const Scaling scaling =
      geometric_scaling(rows(), columns(), term_row_, term_column_, term_value_);
  const auto row_scale = [&](int i) { return scaling.row[static_cast<std::size_t>(i)]; };
  const auto column_scale = [&](int j) { return scaling.column[static_cast<std::size_t>(j)]; };
  double largest_objective = 0.0;
  for (int j = 0; j < columns(); ++j)
    largest_objective = std::max(
        largest_objective, std::fabs(objective_[static_cast<std::size_t>(j)] * column_scale(j)));
  const double objective_scale =
      largest_objective > 0.0 ? power_of_two(1.0 / largest_objective) : 1.0;

  glp_term_out(GLP_OFF);  // GLPK prints its progress otherwise; a library never prints
  std::unique_ptr<glp_prob, ProblemDeleter> lp(glp_create_prob());
  glp_set_obj_dir(lp.get(), GLP_MAX);
  if (rows() > 0) glp_add_rows(lp.get(), rows());
  glp_add_cols(lp.get(), columns());
  // The scaled problem: x = column_scale * x', rows multiplied by row_scale.
  for (int i = 0; i < rows(); ++i)
    glp_set_row_bnds(lp.get(), i + 1, GLP_UP, 0.0,
                     row_upper_[static_cast<std::size_t>(i)] * row_scale(i));
  for (int j = 0; j < columns(); ++j) {
    const double upper = column_upper_[static_cast<std::size_t>(j)] / column_scale(j);
    glp_set_col_bnds(lp.get(), j + 1, upper > 0.0 ? GLP_DB : GLP_FX, 0.0, upper);
    glp_set_obj_coef(lp.get(), j + 1,
                     objective_[static_cast<std::size_t>(j)] * column_scale(j) * objective_scale);
  }
  // GLPK's arrays are 1-based.
  const std::size_t terms = term_value_.size();
  std::vector<int> ia(terms + 1);
  std::vector<int> ja(terms + 1);
  std::vector<double> ar(terms + 1);
  for (std::size_t k = 0; k < terms; ++k) {
    ia[k + 1] = term_row_[k] + 1;
    ja[k + 1] = term_column_[k] + 1;
    ar[k + 1] = term_value_[k] * row_scale(term_row_[k]) * column_scale(term_column_[k]);
  }
  glp_load_matrix(lp.get(), static_cast<int>(terms), ia.data(), ja.data(), ar.data());

  // Weak duality: for any y >= 0, max {c·x : A x <= b, 0 <= x <= ub}
  //   <= y·b + Σ_j max(0, c_j - (Aᵀy)_j) * ub_j,
  // so any duals give a bound, optimal or not; the scaled problem's duals y' are y = R y' / s.
  const auto certificate = [&](auto row_dual) {
    std::vector<double> y(static_cast<std::size_t>(rows()));
    for (int i = 0; i < rows(); ++i)
      y[static_cast<std::size_t>(i)] =
          std::max(0.0, row_dual(lp.get(), i + 1)) * row_scale(i) / objective_scale;
    std::vector<double> reduced = objective_;
    for (std::size_t k = 0; k < terms; ++k)
      reduced[static_cast<std::size_t>(term_column_[k])] -=
          term_value_[k] * y[static_cast<std::size_t>(term_row_[k])];
    double dual = 0.0;
    for (int i = 0; i < rows(); ++i)
      dual += y[static_cast<std::size_t>(i)] * row_upper_[static_cast<std::size_t>(i)];
    return dual + trivial_bound(reduced, column_upper_);
  };

  // The interior point method first: on the per-job relaxation it takes seconds where the
  // simplex took minutes (degenerate, badly scaled). Near its optimum GLPK often stops it with
  // "numeric instability"; its best point's duals still give a certificate (any duals do).
  // It is kept when within kInteriorGap of that point's objective, or when the problem is too
  // big for the simplex to do better in reasonable time.
  glp_iptcp interior;
  glp_init_iptcp(&interior);
  interior.msg_lev = GLP_MSG_OFF;
  glp_interior(lp.get(), &interior);
  const double interior_primal = glp_ipt_obj_val(lp.get()) / objective_scale;
  const double interior_dual = certificate(glp_ipt_row_dual);
  if (std::isfinite(interior_dual)) {
    answer.solved = true;
    answer.primal = interior_primal;
    answer.bound = std::min(answer.bound, interior_dual);
  }
  if (answer.solved &&
      (interior_dual <= interior_primal + kInteriorGap * std::fabs(interior_primal) ||
       rows() > kMostSimplexRows))
    return answer;
  // Else the simplex, from scratch.
  glp_scale_prob(lp.get(), GLP_SF_AUTO);
  glp_smcp simplex;
  glp_init_smcp(&simplex);
  simplex.msg_lev = GLP_MSG_OFF;
  simplex.presolve = GLP_ON;
  simplex.meth = GLP_DUALP;
  if (glp_simplex(lp.get(), &simplex) != 0 || glp_get_status(lp.get()) != GLP_OPT) return answer;
  const double dual = certificate(glp_get_row_dual);
  if (std::isfinite(dual)) {
    answer.solved = true;
    answer.primal = glp_get_obj_val(lp.get()) / objective_scale;
    answer.bound = std::min(answer.bound, dual);
  }
  return answer;
}

}  // namespace gaptrain::sim
