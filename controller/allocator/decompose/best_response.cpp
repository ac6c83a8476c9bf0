#include "allocator/decompose/best_response.hpp"

#include <algorithm>
#include <array>

namespace gaptrain {

namespace {

constexpr double kNone = JobResponse::kNone;

// The best priced value reaching one DP state, and the class count that led to it.
struct Cell {
  double value = kNone;
  int count = 0;

  void offer(double candidate, int candidate_count) {
    if (candidate > value) {
      value = candidate;
      count = candidate_count;
    }
  }
};

// One of the job's modes (docs/allocator.md): its count vectors are those with
// low[c] <= m_c <= high[c] and total_low <= sum m <= total_high.
// A mode is on one node type: high[c] is 0 for the classes of the others.
struct Mode {
  std::vector<int> low, high;
  int total_low = 0, total_high = 0;
  double cost = 0.0;              // decided-rescale cost of choosing this mode
  const JobOnType* on = nullptr;  // the type, and the job's rates there
};

// The job's modes (a shrink, and a grow on each type it may run on: one for a job holding
// nodes), written into `modes`, whose vectors keep their memory from call to call.
std::span<const Mode> modes_of(const ClassedProblem& problem, const ClassedJob& job,
                               std::span<const int> limit, std::vector<Mode>& modes) {
  const std::size_t classes = job.held.size();
  if (modes.size() < job.on.size() + 1) modes.resize(job.on.size() + 1);
  std::size_t count = 0;
  if (job.on.empty()) return {};  // no curve on any type present: the job can only be off
  // Totals run from an allowed size to an allowed size; the tables skip those between.
  const int shrink_low = job.allowed_at_least(job.min_nodes);
  const int shrink_high = job.allowed_at_most(job.held_total - 1);
  if (job.held_total > 0 && shrink_low <= shrink_high) {
    Mode& shrink = modes[count++];
    shrink.on = &job.on.front();  // a job holding nodes runs on their type alone
    shrink.low.assign(classes, 0);
    shrink.high.assign(classes, 0);
    shrink.total_low = shrink_low;
    shrink.total_high = shrink_high;
    shrink.cost = -job.down_cost_s * job.current_rate;
    for (std::size_t c = 0; c < classes; ++c) shrink.high[c] = std::min(job.held[c], limit[c]);
    shrink.low[static_cast<std::size_t>(job.batch_class)] = 1;  // keeps its batch host
  }
  const int grow_low = job.allowed_at_least(job.held_total + 1);
  const int grow_high = job.allowed_at_most(job.max_nodes);
  if (grow_low > grow_high || !job.held_fits(limit)) return {modes.data(), count};
  for (const JobOnType& on : job.on) {
    Mode& grow = modes[count++];
    grow.on = &on;
    grow.low.assign(job.held.begin(), job.held.end());
    grow.high.resize(classes);
    grow.total_low = grow_low;
    grow.total_high = grow_high;
    grow.cost = -job.up_cost_s * job.current_rate;
    for (std::size_t c = 0; c < classes; ++c) {
      grow.high[c] = problem.classes.type[c] == on.type ? std::min(limit[c], grow_high) : 0;
    }
  }
  return {modes.data(), count};
}

// The memory of a ModeTable. One solve builds thousands of tables (every job, mode and price
// the decomposition tries); reusing the buffers keeps the allocator out of malloc.
struct TableBuffers {
  std::vector<Cell> table;
  std::vector<double> shifted;
  std::vector<std::size_t> window;
};

// The dynamic program of one mode: table[s][a] holds the best priced value of the choices for
// classes >= s that leave a_s = a nodes alive in segment s (segment values included). It lives
// in `buffers`, which must outlive it and serve no other table meanwhile.
class ModeTable {
 public:
  ModeTable(const ClassedProblem& problem, const ClassedJob& job, const Mode& mode,
            std::span<const double> price, TableBuffers& buffers)
      : problem_(problem), job_(job), mode_(mode), price_(price), table_(buffers.table) {
    const std::size_t classes = problem.class_count();
    held_ = job.held_total > 0;
    last_ = held_ ? static_cast<std::size_t>(job.batch_class) : classes - 1;
    charge_ = job.down_cost_s * mode.on->reclaim_rate;
    width_ = static_cast<std::size_t>(mode.total_high) + 1;
    table_.assign((classes + 1) * width_, Cell{});
    at(classes, 0).value = 0.0;
    std::vector<double>& shifted = buffers.shifted;
    shifted.resize(width_);
    std::vector<std::size_t>& window = buffers.window;  // monotone deque of a' by decreasing
    window.resize(width_);                              // shifted[a']
    for (std::size_t s = classes; s-- > 0;) {
      // at(s, a) = segment(a) + max over m of at(s + 1, a - m) - price * m - charge. With
      // a' = a - m that is -price * a + max over a' of (at(s + 1, a') + price * a'), a maximum
      // over a window [a - high, a - low] that slides with a: a monotone deque does it in O(W).
      for (std::size_t a = 0; a < width_; ++a) {
        const double v = at(s + 1, a).value;
        shifted[a] = v == kNone ? kNone : v + price_[s] * static_cast<double>(a);
      }
      const auto low = static_cast<std::size_t>(mode.low[s]);
      const auto high = static_cast<std::size_t>(mode.high[s]);
      if (high == 0 && low == 0) {  // none of this class (another type's): only m = 0
        for (std::size_t a = 0; a < width_; ++a) {
          Cell& cell = at(s, a);
          cell = Cell{};
          if (at(s + 1, a).value != kNone) cell.offer(at(s + 1, a).value + segment_value(s, a), 0);
        }
        continue;
      }
      // Taking nodes of class s (m > 0) is a forced shrink unless the job ends with this class:
      // a held job's batch host class, or the highest class of a new job (a' = 0).
      const double charge = (held_ ? s < last_ : true) ? charge_ : 0.0;
      std::size_t head = 0, tail = 0;  // deque holds a' in [a - high, a - 1] with a' >= first
      const std::size_t first = held_ ? 0 : 1;  // a' = 0 of a new job is charge-free, see below
      std::size_t next = first;
      for (std::size_t a = 0; a < width_; ++a) {
        Cell& cell = at(s, a);
        const double base = -price_[s] * static_cast<double>(a);
        if (low == 0 && shifted[a] != kNone) cell.offer(shifted[a] + base, 0);  // m = 0
        if (a == 0) continue;
        // Window of charged moves: a' in [max(first, a - high), a - max(low, 1)].
        if (a >= std::max<std::size_t>(low, 1)) {
          for (; next <= a - std::max<std::size_t>(low, 1); ++next) {
            if (shifted[next] == kNone) continue;
            while (tail > head && shifted[window[tail - 1]] <= shifted[next]) --tail;
            window[tail++] = next;
          }
        }
        while (tail > head && window[head] + high < a) ++head;
        if (tail > head) {
          const std::size_t from = window[head];
          cell.offer(shifted[from] + base - charge, static_cast<int>(a - from));
        }
        // A new job taking all its remaining a nodes here (a' = 0) ends with this class.
        if (!held_ && a >= low && a <= high && shifted[0] != kNone) {
          cell.offer(shifted[0] + base, static_cast<int>(a));
        }
      }
      for (std::size_t a = 0; a < width_; ++a) {
        Cell& cell = at(s, a);
        if (cell.value != kNone) cell.value += segment_value(s, a);
      }
    }
  }

  // Offers the mode's best option to `best`, and its count vector to `counts` if it wins.
  void offer_best(Cell& best, std::vector<int>& counts) const {
    Cell total;
    for (int a = mode_.total_low; a <= mode_.total_high; ++a) {
      if (job_.allowed(a)) total.offer(at(0, static_cast<std::size_t>(a)).value, a);
    }
    if (total.value == kNone || total.value + mode_.cost <= best.value) return;
    best.value = total.value + mode_.cost;
    counts.assign(problem_.class_count(), 0);
    auto a = static_cast<std::size_t>(total.count);
    for (std::size_t s = 0; s < counts.size(); ++s) {
      counts[s] = at(s, a).count;
      a -= static_cast<std::size_t>(counts[s]);
    }
  }

  // Depth-first over classes, pruned by the table's best completions.
  bool visit_above(double threshold,
                   const std::function<bool(std::span<const int>, double)>& visit) const {
    std::vector<int> counts(problem_.class_count(), 0);
    for (int a = mode_.total_low; a <= mode_.total_high; ++a) {
      const auto au = static_cast<std::size_t>(a);
      if (!job_.allowed(a) || at(0, au).value + mode_.cost < threshold) continue;
      if (!descend(0, au, mode_.cost, threshold, counts, visit)) return false;
    }
    return true;
  }

 private:
  Cell& at(std::size_t s, std::size_t a) { return table_[s * width_ + a]; }
  const Cell& at(std::size_t s, std::size_t a) const { return table_[s * width_ + a]; }

  double segment_value(std::size_t s, std::size_t a) const {
    return s <= last_
               ? problem_.segment_length(s) * job_.running_rate(*mode_.on, static_cast<int>(a))
               : 0.0;
  }

  // Price and forced-shrink charge of taking m nodes of class s with a nodes alive in segment s.
  double step(std::size_t s, int m, std::size_t a) const {
    const bool forced_shrink = m > 0 && (held_ ? s < last_ : a > static_cast<std::size_t>(m));
    return -price_[s] * m - (forced_shrink ? charge_ : 0.0);
  }

  bool descend(std::size_t s, std::size_t a, double partial, double threshold,
               std::vector<int>& counts,
               const std::function<bool(std::span<const int>, double)>& visit) const {
    if (s == counts.size()) return a != 0 || visit(counts, partial);
    const double here = partial + segment_value(s, a);
    for (int m = mode_.low[s]; m <= std::min(mode_.high[s], static_cast<int>(a)); ++m) {
      const std::size_t rest = a - static_cast<std::size_t>(m);
      const double value = here + step(s, m, a);
      if (value + at(s + 1, rest).value < threshold) continue;
      counts[s] = m;
      if (!descend(s + 1, rest, value, threshold, counts, visit)) return false;
    }
    counts[s] = 0;
    return true;
  }

  const ClassedProblem& problem_;
  const ClassedJob& job_;
  const Mode& mode_;
  std::span<const double> price_;
  bool held_ = false;
  std::size_t last_ = 0;
  double charge_ = 0.0;
  std::size_t width_ = 0;
  std::vector<Cell>& table_;
};

double priced(std::span<const double> price, std::span<const int> counts) {
  double sum = 0.0;
  for (std::size_t c = 0; c < counts.size(); ++c) sum += price[c] * counts[c];
  return sum;
}

double off_value(const ClassedJob& job) {
  return job.held_total > 0 ? -job.down_cost_s * job.current_rate : 0.0;
}

}  // namespace

JobResponse best_response(const ClassedProblem& problem, std::size_t j,
                          std::span<const double> price, std::span<const int> limit) {
  const ClassedJob& job = problem.jobs[j];
  Cell best;
  std::vector<int> counts(problem.class_count(), 0);
  best.offer(off_value(job), 0);
  if (job.can_stay() && job.held_fits(limit)) {
    const double stay = job_value(problem, j, job.held) - priced(price, job.held);
    if (stay > best.value) counts = job.held;
    best.offer(stay, 0);
  }
  // This function's own scratch: its tables never nest, and one solve calls it thousands of times.
  thread_local TableBuffers buffers;
  thread_local std::vector<Mode> modes;
  for (const Mode& mode : modes_of(problem, job, limit, modes)) {
    ModeTable(problem, job, mode, price, buffers).offer_best(best, counts);
  }
  return {best.value, std::move(counts)};
}

bool for_each_option_above(const ClassedProblem& problem, std::size_t j,
                           std::span<const double> price, double threshold,
                           const std::function<bool(std::span<const int>, double)>& visit) {
  const ClassedJob& job = problem.jobs[j];
  const std::vector<int> off(problem.class_count(), 0);
  if (off_value(job) >= threshold && !visit(off, off_value(job))) return false;
  const std::span<const int> limit = problem.classes.size;
  if (job.can_stay() && job.held_fits(limit)) {
    const double stay = job_value(problem, j, job.held) - priced(price, job.held);
    if (stay >= threshold && !visit(job.held, stay)) return false;
  }
  // Not best_response's buffers: `visit` may call best_response while this table is read.
  // Nor shared across calls: `visit` may enumerate another job's options meanwhile.
  TableBuffers buffers;
  std::vector<Mode> modes;
  for (const Mode& mode : modes_of(problem, job, limit, modes)) {
    if (!ModeTable(problem, job, mode, price, buffers).visit_above(threshold, visit)) return false;
  }
  return true;
}

}  // namespace gaptrain
