// A linear program max c·x s.t. A x <= b, 0 <= x <= ub, solved by GLPK (interior point, the
// simplex where that fails), whose answer is a proven upper bound on its optimum: the bound
// returned is the dual objective of the solver's row duals (clamped to >= 0), which weak
// duality makes an upper bound whatever the solver's tolerances did. The upper bound
// (upper_bound.hpp) uses it so that a bound never falls below the optimum by a rounding error.
#pragma once

#include <vector>

namespace gaptrain::sim {

class CertifiedLp {
 public:
  // A column with objective `objective` and bounds [0, upper] (upper finite: the certificate
  // needs it). Returns its index.
  int add_column(double objective, double upper);
  // A row `Σ coefficient * x <= upper`; add its terms with add_term. Returns its index.
  int add_row(double upper);
  void add_term(int row, int column, double coefficient);

  int columns() const { return static_cast<int>(objective_.size()); }
  int rows() const { return static_cast<int>(row_upper_.size()); }

  struct Answer {
    bool solved = false;  // false: GLPK failed; `bound` is then the trivial Σ max(c, 0) * ub
    double bound = 0.0;   // >= the optimum, proven by the dual certificate
    double primal = 0.0;  // GLPK's optimum, for comparison (== bound up to tolerances)
  };
  Answer maximize() const;

 private:
  std::vector<double> objective_;
  std::vector<double> column_upper_;
  std::vector<double> row_upper_;
  std::vector<int> term_row_;
  std::vector<int> term_column_;
  std::vector<double> term_value_;
};

}  // namespace gaptrain::sim
