#include "simulator/certified_lp.hpp"

#include <glpk.h>

#include <algorithm>
#include <memory>

namespace gaptrain::sim {

namespace {

struct ProblemDeleter {
  void operator()(glp_prob* p) const { glp_delete_prob(p); }
};

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
  for (int j = 0; j < columns(); ++j)
    answer.bound += std::max(0.0, objective_[static_cast<std::size_t>(j)]) *
                    column_upper_[static_cast<std::size_t>(j)];
  if (columns() == 0) {
    answer.solved = true;
    return answer;
  }

  glp_term_out(GLP_OFF);  // GLPK prints its progress otherwise; a library never prints
  std::unique_ptr<glp_prob, ProblemDeleter> lp(glp_create_prob());
  glp_set_obj_dir(lp.get(), GLP_MAX);
  if (rows() > 0) glp_add_rows(lp.get(), rows());
  glp_add_cols(lp.get(), columns());
  for (int i = 0; i < rows(); ++i)
    glp_set_row_bnds(lp.get(), i + 1, GLP_UP, 0.0, row_upper_[static_cast<std::size_t>(i)]);
  for (int j = 0; j < columns(); ++j) {
    const double upper = column_upper_[static_cast<std::size_t>(j)];
    glp_set_col_bnds(lp.get(), j + 1, upper > 0.0 ? GLP_DB : GLP_FX, 0.0, upper);
    glp_set_obj_coef(lp.get(), j + 1, objective_[static_cast<std::size_t>(j)]);
  }
  // GLPK's arrays are 1-based.
  const std::size_t terms = term_value_.size();
  std::vector<int> ia(terms + 1);
  std::vector<int> ja(terms + 1);
  std::vector<double> ar(terms + 1);
  for (std::size_t k = 0; k < terms; ++k) {
    ia[k + 1] = term_row_[k] + 1;
    ja[k + 1] = term_column_[k] + 1;
    ar[k + 1] = term_value_[k];
  }
  glp_load_matrix(lp.get(), static_cast<int>(terms), ia.data(), ja.data(), ar.data());
  glp_scale_prob(lp.get(), GLP_SF_AUTO);
  glp_smcp simplex;
  glp_init_smcp(&simplex);
  simplex.msg_lev = GLP_MSG_OFF;
  simplex.presolve = GLP_ON;
  simplex.meth = GLP_DUALP;
  if (glp_simplex(lp.get(), &simplex) != 0 || glp_get_status(lp.get()) != GLP_OPT) return answer;
  answer.primal = glp_get_obj_val(lp.get());

  // Weak duality: for any y >= 0, max {c·x : A x <= b, 0 <= x <= ub}
  //   <= y·b + Σ_j max(0, c_j - (Aᵀy)_j) * ub_j.
  std::vector<double> y(static_cast<std::size_t>(rows()));
  for (int i = 0; i < rows(); ++i)
    y[static_cast<std::size_t>(i)] = std::max(0.0, glp_get_row_dual(lp.get(), i + 1));
  std::vector<double> reduced = objective_;
  for (std::size_t k = 0; k < terms; ++k)
    reduced[static_cast<std::size_t>(term_column_[k])] -=
        term_value_[k] * y[static_cast<std::size_t>(term_row_[k])];
  double dual = 0.0;
  for (int i = 0; i < rows(); ++i)
    dual += y[static_cast<std::size_t>(i)] * row_upper_[static_cast<std::size_t>(i)];
  for (int j = 0; j < columns(); ++j)
    dual += std::max(0.0, reduced[static_cast<std::size_t>(j)]) *
            column_upper_[static_cast<std::size_t>(j)];
  answer.solved = true;
  answer.bound = std::min(answer.bound, dual);
  return answer;
}

}  // namespace gaptrain::sim
