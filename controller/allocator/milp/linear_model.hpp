// A MILP assembled column by column and row by row, then handed to GLPK in one piece
// (glp_load_matrix), which is much faster than growing a glp_prob entry by entry.
#pragma once

#include <limits>
#include <utility>
#include <vector>

struct glp_prob;

namespace gaptrain::allocator {

// Deletes a GLPK problem (glp_delete_prob), for std::unique_ptr<glp_prob, GlpkProblemDeleter>.
struct GlpkProblemDeleter {
  void operator()(glp_prob* problem) const;
};

class LinearModel {
 public:
  static constexpr double kInfinity = std::numeric_limits<double>::infinity();

  enum class Kind { continuous, integer, binary };
  struct Term {
    int column;
    double coefficient;
  };

  // Returns the column's 1-based GLPK index.
  int add_column(double lower, double upper, double objective, Kind kind);
  void add_row(double lower, double upper, std::vector<Term> terms);
  void set_objective_constant(double constant) { objective_constant_ = constant; }
  void add_to_objective(int column, double amount) { column_at(column).objective += amount; }
  double upper_bound(int column) const {
    return columns_[static_cast<std::size_t>(column - 1)].upper;
  }

  int columns() const { return static_cast<int>(columns_.size()); }
  int rows() const { return static_cast<int>(rows_.size()); }
  int integer_columns() const { return integer_columns_; }

  // A new maximization problem; the caller owns it (glp_delete_prob).
  glp_prob* to_glpk() const;

 private:
  struct Column {
    double lower, upper, objective;
    Kind kind;
  };
  Column& column_at(int column) { return columns_[static_cast<std::size_t>(column - 1)]; }
  struct Row {
    double lower, upper;
  };
  std::vector<Column> columns_;
  std::vector<Row> rows_;
  std::vector<int> entry_row_, entry_column_;  // 1-based, as glp_load_matrix wants
  std::vector<double> entry_value_;
  double objective_constant_ = 0.0;
  int integer_columns_ = 0;
};

}  // namespace gaptrain::allocator
