#include "allocator/milp/linear_model.hpp"

#include <glpk.h>

#include <cmath>

namespace gaptrain::allocator {

namespace {

int bound_type(double lower, double upper) {
  const bool has_lower = std::isfinite(lower);
  const bool has_upper = std::isfinite(upper);
  if (has_lower && has_upper) return lower == upper ? GLP_FX : GLP_DB;
  if (has_lower) return GLP_LO;
  if (has_upper) return GLP_UP;
  return GLP_FR;
}

double finite_or_zero(double value) {
  return std::isfinite(value) ? value : 0.0;
}

}  // namespace

int LinearModel::add_column(double lower, double upper, double objective, Kind kind) {
  columns_.push_back({lower, upper, objective, kind});
  if (kind != Kind::continuous) ++integer_columns_;
  return static_cast<int>(columns_.size());
}

void LinearModel::add_row(double lower, double upper, std::vector<Term> terms) {
  rows_.push_back({lower, upper});
  const auto row = static_cast<int>(rows_.size());
  for (const Term& term : terms) {
    if (term.coefficient == 0.0) continue;
    entry_row_.push_back(row);
    entry_column_.push_back(term.column);
    entry_value_.push_back(term.coefficient);
  }
}

glp_prob* LinearModel::to_glpk() const {
  glp_prob* problem = glp_create_prob();
  glp_set_obj_dir(problem, GLP_MAX);
  glp_set_obj_coef(problem, 0, objective_constant_);
  if (!columns_.empty()) glp_add_cols(problem, columns());
  if (!rows_.empty()) glp_add_rows(problem, rows());
  for (int j = 1; j <= columns(); ++j) {
    const Column& c = columns_[static_cast<std::size_t>(j - 1)];
    if (c.kind == Kind::binary) {
      glp_set_col_kind(problem, j, GLP_BV);
    } else {
      glp_set_col_bnds(problem, j, bound_type(c.lower, c.upper), finite_or_zero(c.lower),
                       finite_or_zero(c.upper));
      if (c.kind == Kind::integer) glp_set_col_kind(problem, j, GLP_IV);
    }
    glp_set_obj_coef(problem, j, c.objective);
  }
  for (int i = 1; i <= rows(); ++i) {
    const Row& r = rows_[static_cast<std::size_t>(i - 1)];
    glp_set_row_bnds(problem, i, bound_type(r.lower, r.upper), finite_or_zero(r.lower),
                     finite_or_zero(r.upper));
  }
  if (!entry_value_.empty()) {
    // glp_load_matrix ignores element 0 of each array.
    std::vector<int> ia{0}, ja{0};
    std::vector<double> ar{0.0};
    ia.insert(ia.end(), entry_row_.begin(), entry_row_.end());
    ja.insert(ja.end(), entry_column_.begin(), entry_column_.end());
    ar.insert(ar.end(), entry_value_.begin(), entry_value_.end());
    glp_load_matrix(problem, static_cast<int>(entry_value_.size()), ia.data(), ja.data(),
                    ar.data());
  }
  return problem;
}

void GlpkProblemDeleter::operator()(glp_prob* problem) const {
  glp_delete_prob(problem);
}

}  // namespace gaptrain::allocator
