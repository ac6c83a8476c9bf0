#include "allocator/milp/milp.hpp"

#include <algorithm>
#include <cmath>
#include <memory>

#include "allocator/milp/glpk_solve.hpp"
#include "allocator/milp/linear_model.hpp"
#include "allocator/milp/piecewise.hpp"

namespace gaptrain::allocator {

namespace {

using Kind = LinearModel::Kind;
using Term = LinearModel::Term;
constexpr double kInf = LinearModel::kInfinity;

// Columns of one job in one mode (shrink or grow); 0 means "no such column".
struct ModeColumns {
  int choose = 0;          // y_{j,q}
  std::vector<int> count;  // m_{j,q,c} per class
};

// A job's grow modes are one per node type it may run on (one for a job holding nodes, one over
// every class for a job that mixes types).
struct JobColumns {
  int stay = 0;
  ModeColumns shrink;
  std::vector<ModeColumns> grow;
};

class ModelBuilder {
 public:
  explicit ModelBuilder(const ClassedProblem& problem)
      : problem_(problem), capacity_terms_(problem.class_count()) {}

  std::vector<JobColumns> build() {
    std::vector<JobColumns> jobs(problem_.jobs.size());
    double constant = 0.0;
    for (std::size_t j = 0; j < problem_.jobs.size(); ++j) {
      const ClassedJob& job = problem_.jobs[j];
      // Baseline: the job is off. Turning it off costs a held job its shrink; every mode that
      // keeps it running adds that cost back and charges its own.
      const double off_cost = job.held_total > 0 ? job.down_cost_s * job.current_rate : 0.0;
      constant -= off_cost;
      JobColumns& columns = jobs[j];
      if (job.can_stay()) {
        columns.stay =
            model_.add_column(0, 1, job_value(problem_, j, job.held) + off_cost, Kind::binary);
        for (std::size_t c = 0; c < job.held.size(); ++c) {
          if (job.held[c] > 0)
            capacity_terms_[c].push_back({columns.stay, static_cast<double>(job.held[c])});
        }
      }
      // Each mode's totals run from an allowed size to an allowed size (add_mode() rules out
      // those between).
      const int shrink_low = job.allowed_at_least(job.min_nodes);
      const int shrink_high = job.allowed_at_most(job.held_total - 1);
      if (job.held_total > 0 && shrink_low <= shrink_high && !job.on.empty()) {
        // (A job holding nodes runs on their type alone, or mixes: job.on holds that one.)
        // A shrink costs what turning the job off does (job_value's down cost): the mode adds
        // back the baseline's charge and pays its own, the same.
        columns.shrink = add_mode(job, job.on.front(), shrink_low, shrink_high, /*grow=*/false,
                                  off_cost - job.down_cost_s * job.current_rate);
      }
      const int grow_low = job.allowed_at_least(job.held_total + 1);
      const int grow_high = job.allowed_at_most(job.max_nodes);
      for (const JobOnType& on : job.on) {
        if (grow_low > grow_high) break;
        columns.grow.push_back(add_mode(job, on, grow_low, grow_high, /*grow=*/true,
                                        off_cost - job.up_cost_s * job.current_rate));
      }
      // One mode, so one type, at most.
      std::vector<Term> one_mode;
      for (int y : {columns.stay, columns.shrink.choose}) {
        if (y != 0) one_mode.push_back({y, 1.0});
      }
      for (const ModeColumns& grow : columns.grow) one_mode.push_back({grow.choose, 1.0});
      if (one_mode.size() > 1) model_.add_row(-kInf, 1, std::move(one_mode));
    }
    for (std::size_t c = 0; c < capacity_terms_.size(); ++c) {
      if (!capacity_terms_[c].empty()) {
        model_.add_row(-kInf, problem_.classes.size[c], std::move(capacity_terms_[c]));
      }
    }
    model_.set_objective_constant(constant);
    return jobs;
  }

  const LinearModel& model() const { return model_; }

 private:
  // Adds y, the class counts, their count and batch-host rows, the segment values and the
  // forced-shrink charges of one mode.
  ModeColumns add_mode(const ClassedJob& job, const JobOnType& on, int low, int high, bool grow,
                       double y_objective) {
    const std::size_t classes = problem_.class_count();
    pieces_ = rate_pieces(job, on);
    ModeColumns mode;
    mode.choose = model_.add_column(0, 1, y_objective, Kind::binary);
    const int y = mode.choose;
    mode.count.assign(classes, 0);

    std::vector<Term> total{{y, -static_cast<double>(low)}};
    std::vector<Term> at_most{{y, -static_cast<double>(high)}};
    for (std::size_t c = 0; c < classes; ++c) {
      const int held = job.held[c];
      const int cap = grow ? std::min(problem_.classes.size[c], high) : std::min(held, high);
      if (cap <= 0 || !on.covers(problem_.classes.type[c])) continue;  // (the mode's type only)
      const int m = model_.add_column(0, cap, 0, Kind::integer);
      mode.count[c] = m;
      total.push_back({m, 1.0});
      at_most.push_back({m, 1.0});
      capacity_terms_[c].push_back({m, 1.0});
      model_.add_row(-kInf, 0, {{m, 1.0}, {y, -static_cast<double>(cap)}});  // m <= cap * y
      if (grow && held > 0) model_.add_row(0, kInf, {{m, 1.0}, {y, -static_cast<double>(held)}});
    }
    add_allowed_sizes(job, low, high, y, total);
    model_.add_row(0, kInf, std::move(total));     // sum m >= low * y
    model_.add_row(-kInf, 0, std::move(at_most));  // sum m <= high * y
    if (!grow) {
      const auto b = static_cast<std::size_t>(job.batch_class);
      model_.add_row(0, kInf, {{mode.count[b], 1.0}, {y, -1.0}});  // keeps its batch host
    }

    // A held job ends with its batch host; a new one with its longest hole.
    const bool new_job = job.held_total == 0;
    const std::size_t last = new_job ? classes - 1 : static_cast<std::size_t>(job.batch_class);
    for (std::size_t s = 0; s <= last; ++s) add_segment_value(mode, s);
    add_forced_shrinks(job, on, mode, last, new_job);
    return mode;
  }

  // Restricts the mode's total to the job's allowed sizes in [low, high]; nothing to add when
  // every count there is allowed. Evenly spaced sizes (multiples of a group size) take one
  // integer column, sum m = low * y + step * t; others one binary per size, sum m = sum k z_k
  // with sum z_k = y (a few for powers of two). `total` is the row sum m - low * y.
  void add_allowed_sizes(const ClassedJob& job, int low, int high, int y,
                         const std::vector<Term>& total) {
    if (job.sizes.empty()) return;
    std::vector<int> sizes;
    for (int k = low; k <= high; k = job.allowed_at_least(k + 1)) sizes.push_back(k);
    if (sizes.size() == static_cast<std::size_t>(high - low + 1)) return;  // every count
    const int step = sizes.size() > 1 ? sizes[1] - sizes[0] : 1;
    bool even = true;
    for (std::size_t i = 1; i < sizes.size(); ++i) even &= sizes[i] - sizes[i - 1] == step;
    std::vector<Term> row = total;  // sum m - low * y - (the allowed offset above low) = 0
    if (even) {
      const int t = model_.add_column(0, (high - low) / step, 0, Kind::integer);
      row.push_back({t, -static_cast<double>(step)});
      model_.add_row(0, 0, std::move(row));
      return;
    }
    std::vector<Term> one_size{{y, -1.0}};
    for (int size : sizes) {
      const int z = model_.add_column(0, 1, 0, Kind::binary);
      one_size.push_back({z, 1.0});
      row.push_back({z, -static_cast<double>(size - low)});
    }
    model_.add_row(0, 0, std::move(one_size));  // sum z = y
    model_.add_row(0, 0, std::move(row));
  }

  // L_s * v-hat(a_s) with a_s = sum_{c >= s} m_c, in the incremental formulation.
  void add_segment_value(const ModeColumns& mode, std::size_t s) {
    const double length = problem_.segment_length(s);
    if (length <= 0.0) return;
    std::vector<Term> alive;
    for (std::size_t c = s; c < mode.count.size(); ++c) {
      if (mode.count[c] != 0) alive.push_back({mode.count[c], 1.0});
    }
    if (alive.empty()) return;
    // Pieces fill in order: delta_1 <= y and delta_{k+1} <= delta_k. The chain keeps the
    // relaxation tight (every delta <= y) and makes one binary per steeper piece enough: without
    // it a concave piece before a steeper one could be skipped (found by the enumeration tests).
    int previous_delta = mode.choose;
    for (const Piece& piece : pieces_) {
      const int delta = model_.add_column(0, 1, length * piece.rise, Kind::continuous);
      alive.push_back({delta, -static_cast<double>(piece.length)});
      model_.add_row(-kInf, 0, {{delta, 1.0}, {previous_delta, -1.0}});
      if (piece.steeper) {
        // A steeper piece may only start once the previous one is full.
        const int order = model_.add_column(0, 1, 0, Kind::binary);
        model_.add_row(-kInf, 0, {{delta, 1.0}, {order, -1.0}});
        model_.add_row(-kInf, 0, {{order, 1.0}, {previous_delta, -1.0}});
      }
      previous_delta = delta;
    }
    model_.add_row(0, 0, std::move(alive));
  }

  // One binary per end (group of classes that end together, ClassedProblem::ends_group) before
  // the job's end that it has nodes of: each such end is a forced shrink. A held job's end is its
  // batch host's; a new job's last end is not one, hence the refund on y. (A mode on one type
  // has one class per end; one that mixes types may have several, which leave as one shrink.)
  void add_forced_shrinks(const ClassedJob& job, const JobOnType& on, const ModeColumns& mode,
                          std::size_t last, bool new_job) {
    const double charge = job.down_cost_s * on.reclaim_rate;
    if (charge <= 0.0 || problem_.class_count() == 1) return;
    const std::vector<double>& end = problem_.classes.end_s;
    const double job_end = end[last];  // (a new job's last class: the last there is)
    bool any = false;
    int used = 0;  // the current end's binary, once one of its classes has a column
    for (std::size_t c = 0; c < mode.count.size(); ++c) {
      const int m = mode.count[c];
      if (m != 0 && (new_job || end[c] < job_end)) {
        if (used == 0) {
          used = model_.add_column(0, 1, -charge, Kind::binary);
          model_.add_row(-kInf, 0, {{used, 1.0}, {mode.choose, -1.0}});
          any = true;
        }
        model_.add_row(-kInf, 0, {{m, 1.0}, {used, -model_.upper_bound(m)}});
      }
      if (problem_.ends_group(c)) used = 0;
    }
    if (new_job && any) model_.add_to_objective(mode.choose, charge);
  }

  const ClassedProblem& problem_;
  LinearModel model_;
  std::vector<Piece> pieces_;
  std::vector<std::vector<Term>> capacity_terms_;
};

std::vector<std::vector<int>> read_counts(const std::vector<double>& values,
                                          const ClassedProblem& problem,
                                          const std::vector<JobColumns>& columns) {
  std::vector<std::vector<int>> counts = unchanged_counts(problem);
  auto value = [&values](int column) { return values[static_cast<std::size_t>(column)]; };
  auto chosen = [&value](int column) { return column != 0 && value(column) > 0.5; };
  for (std::size_t j = 0; j < columns.size(); ++j) {
    const JobColumns& job = columns[j];
    std::vector<int>& out = counts[j];
    if (chosen(job.stay)) continue;
    std::fill(out.begin(), out.end(), 0);
    const auto read_mode = [&](const ModeColumns& mode) {
      if (!chosen(mode.choose)) return;
      for (std::size_t c = 0; c < out.size(); ++c) {
        if (mode.count[c] != 0) out[c] = static_cast<int>(std::lround(value(mode.count[c])));
      }
    };
    read_mode(job.shrink);
    for (const ModeColumns& grow : job.grow) read_mode(grow);
  }
  return counts;
}

}  // namespace

std::vector<std::vector<int>> unchanged_counts(const ClassedProblem& problem) {
  std::vector<std::vector<int>> counts;
  counts.reserve(problem.jobs.size());
  for (const ClassedJob& job : problem.jobs) {
    counts.push_back(job.can_stay() ? job.held : std::vector<int>(job.held.size(), 0));
  }
  return counts;
}

CountSolution solve_counts(const ClassedProblem& problem, const SolverOptions& options,
                           std::chrono::steady_clock::time_point deadline) {
  CountSolution solution;
  if (problem.jobs.empty()) {
    solution.call_status = CallStatus::ok;
    solution.model_status = ModelStatus::optimal;
    return solution;
  }

  ModelBuilder builder(problem);
  const std::vector<JobColumns> columns = builder.build();
  const LinearModel& model = builder.model();
  solution.size = {model.columns(), model.rows(), model.integer_columns()};
  // Offer "nothing moves" as the first incumbent, where every job staying fits (on a
  // sub-problem whose classes lost nodes to settled jobs, it may not).
  std::vector<int> staying(problem.class_count(), 0);
  for (const ClassedJob& job : problem.jobs) {
    if (!job.can_stay()) continue;
    for (std::size_t c = 0; c < staying.size(); ++c) staying[c] += job.held[c];
  }
  std::vector<double> start;
  if (std::equal(staying.begin(), staying.end(), problem.classes.size.begin(),
                 [](int used, int size) { return used <= size; })) {
    start.assign(static_cast<std::size_t>(model.columns()) + 1, 0.0);
    for (const JobColumns& job : columns) {
      if (job.stay != 0) start[static_cast<std::size_t>(job.stay)] = 1.0;
    }
  }
  GlpkOutcome outcome = solve_with_glpk(model, start, options.mip_gap,
                                        SimplexMethod::dual,  // 2x faster than primal here
                                        deadline);
  solution.call_status = outcome.call_status;
  solution.model_status = outcome.model_status;
  solution.message = std::move(outcome.message);
  solution.best_bound = outcome.best_bound;
  if (!outcome.values.empty()) solution.counts = read_counts(outcome.values, problem, columns);
  return solution;
}

}  // namespace gaptrain::allocator
