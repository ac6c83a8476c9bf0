#include "allocator/decompose/best_response.hpp"

#include <algorithm>
#include <array>
#include <cstdint>

namespace gaptrain::allocator {

namespace {

constexpr double kNone = JobResponse::kNone;

// The best priced value reaching one DP state, the class count that led to it, and the layer
// of the state it came from (ModeTable).
struct Cell {
  double value = kNone;
  int count = 0;
  std::uint8_t layer = 0;

  void offer(double candidate, int candidate_count, std::uint8_t from_layer = 0) {
    if (candidate > value) {
      value = candidate;
      count = candidate_count;
      layer = from_layer;
    }
  }
};

// One of the job's modes (docs/allocator.md): its count vectors are those with
// low[c] <= m_c <= high[c] and total_low <= sum m <= total_high.
// A mode is on one node type: high[c] is 0 for the classes of the others (on every type for a
// job that mixes types).
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
    shrink.on = &job.on.front();  // a job holding nodes runs on their type alone (or mixes)
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
      grow.high[c] = on.covers(problem.classes.type[c]) ? std::min(limit[c], grow_high) : 0;
    }
  }
  return {modes.data(), count};
}

// The memory of a ModeTable. One solve builds thousands of tables (every job, mode and price
// the decomposition tries); reusing the buffers keeps the allocator out of malloc.
struct TableBuffers {
  std::vector<Cell> table;
  std::array<std::vector<double>, 2> shifted;      // per source: value + price * a'
  std::array<std::vector<std::uint8_t>, 2> layer;  // per source: the layer of a'
  std::vector<std::size_t> window;
};

// Whether some group of classes that end together (ClassedProblem::ends_group) has two classes
// the mode may take nodes of: only a mode that mixes types can, and only then does the table
// need to know whether the group has paid its forced shrink.
bool two_classes_share_an_end(const ClassedProblem& problem, const Mode& mode) {
  int in_group = 0;
  for (std::size_t c = 0; c < mode.high.size(); ++c) {
    in_group += mode.high[c] > 0 ? 1 : 0;
    if (in_group > 1) return true;
    if (problem.ends_group(c)) in_group = 0;
  }
  return false;
}

// The dynamic program of one mode: table[s][f][a] holds the best priced value of the choices for
// classes >= s that leave a_s = a nodes alive in segment s (segment values included). Forced
// shrinks are paid once per end (group of classes that end together), at the group's highest
// class with nodes: layer f = 1 holds the choices that take nodes of the group at s or above it
// (paid), f = 0 those that do not. A mode with at most one class per group (every mode on one
// type) needs one layer, both in one. It lives in `buffers`, which must outlive it and serve no
// other table meanwhile.
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
    layers_ = two_classes_share_an_end(problem, mode) ? 2 : 1;
    table_.assign((classes + 1) * layers_ * width_, Cell{});
    at(classes, 0, 0).value = 0.0;
    for (auto& shifted : buffers.shifted) shifted.resize(width_);
    for (auto& layer : buffers.layer) layer.resize(width_);
    buffers.window.resize(width_);
    const double job_end = problem.classes.end_s[last_];
    for (std::size_t s = classes; s-- > 0;) {
      // None of this class (another type's): m = 0. (Not a shrink's full batch-host class,
      // whose low of 1 above a high of 0 leaves it no count at all.)
      if (layers_ == 1 && mode.high[s] == 0 && mode.low[s] == 0) {
        for (std::size_t a = 0; a < width_; ++a) {
          const double next = at(s + 1, a, 0).value;
          at(s, a, 0) = next == kNone ? Cell{} : Cell{next + segment_value(s, a), 0, 0};
        }
        continue;
      }
      const bool top = problem.ends_group(s);
      // Source 0: nothing of this group taken above s (at its top: the best of the next
      // group's layers). Source 1: some taken, and paid for (two layers, below the top only).
      shift(s, top ? kBestLayer : 0, buffers, 0);
      const bool from_paid = layers_ == 2 && !top;
      if (from_paid) shift(s, 1, buffers, 1);
      const auto low = static_cast<std::size_t>(mode.low[s]);
      const auto high = static_cast<std::size_t>(mode.high[s]);
      // Nodes of class s leaving before the job's end are a forced shrink (paid here, the
      // group's highest class taken); a new job's nodes that leave nothing above end it (free).
      const double charge = held_ && problem.classes.end_s[s] >= job_end ? 0.0 : charge_;
      const std::size_t taken = layers_ == 2 ? 1 : 0;  // the layer of choices taking from s
      if (low == 0) offer_stay(s, 0, buffers.shifted[0], buffers.layer[0]);
      offer_moves(s, taken, low, high, charge, !held_, buffers, 0);
      if (from_paid) {
        if (low == 0) offer_stay(s, 1, buffers.shifted[1], buffers.layer[1]);
        offer_moves(s, 1, low, high, 0.0, false, buffers, 1);
      }
      for (std::size_t f = 0; f < layers_; ++f) {
        for (std::size_t a = 0; a < width_; ++a) {
          Cell& cell = at(s, a, f);
          if (cell.value != kNone) cell.value += segment_value(s, a);
        }
      }
    }
  }

  // Offers the mode's best option to `best`, and its count vector to `counts` if it wins.
  void offer_best(Cell& best, std::vector<int>& counts) const {
    Cell total;
    for (int a = mode_.total_low; a <= mode_.total_high; ++a) {
      if (job_.allowed(a)) total.offer(best_at(0, static_cast<std::size_t>(a)).value, a);
    }
    if (total.value == kNone || total.value + mode_.cost <= best.value) return;
    best.value = total.value + mode_.cost;
    counts.assign(problem_.class_count(), 0);
    auto a = static_cast<std::size_t>(total.count);
    std::size_t f = best_layer(0, a);
    for (std::size_t s = 0; s < counts.size(); ++s) {
      const Cell& cell = at(s, a, f);
      counts[s] = cell.count;
      f = cell.layer;
      a -= static_cast<std::size_t>(counts[s]);
    }
  }

  // Depth-first over classes, pruned by the table's best completions.
  bool visit_above(double threshold,
                   const std::function<bool(std::span<const int>, double)>& visit) const {
    std::vector<int> counts(problem_.class_count(), 0);
    for (int a = mode_.total_low; a <= mode_.total_high; ++a) {
      const auto au = static_cast<std::size_t>(a);
      if (!job_.allowed(a) || best_at(0, au).value + mode_.cost < threshold) continue;
      if (!descend(0, au, mode_.cost, false, threshold, counts, visit)) return false;
    }
    return true;
  }

 private:
  static constexpr std::size_t kBestLayer = 2;  // shift(): the better of the layers

  Cell& at(std::size_t s, std::size_t a, std::size_t f) {
    return table_[(s * layers_ + f) * width_ + a];
  }
  const Cell& at(std::size_t s, std::size_t a, std::size_t f) const {
    return table_[(s * layers_ + f) * width_ + a];
  }
  std::size_t best_layer(std::size_t s, std::size_t a) const {
    return layers_ == 2 && at(s, a, 1).value > at(s, a, 0).value ? 1 : 0;
  }
  const Cell& best_at(std::size_t s, std::size_t a) const { return at(s, a, best_layer(s, a)); }

  // Source `source` for class s: at(s + 1, a', layer) + price[s] * a' per a', with its layer.
  void shift(std::size_t s, std::size_t layer, TableBuffers& buffers, std::size_t source) const {
    std::vector<double>& shifted = buffers.shifted[source];
    std::vector<std::uint8_t>& from = buffers.layer[source];
    for (std::size_t a = 0; a < width_; ++a) {
      const std::size_t f = layer == kBestLayer ? best_layer(s + 1, a) : layer;
      const double v = at(s + 1, a, f).value;
      shifted[a] = v == kNone ? kNone : v + price_[s] * static_cast<double>(a);
      from[a] = static_cast<std::uint8_t>(f);
    }
  }

  // m = 0: at(s, a, f) from a' = a of the source.
  void offer_stay(std::size_t s, std::size_t f, const std::vector<double>& shifted,
                  const std::vector<std::uint8_t>& from) {
    for (std::size_t a = 0; a < width_; ++a) {
      if (shifted[a] != kNone)
        at(s, a, f).offer(shifted[a] - price_[s] * static_cast<double>(a), 0, from[a]);
    }
  }

  // m in [max(low, 1), high] into layer f from `source`, paying `charge`; with `free_end`, a
  // move that leaves nothing above (a' = 0: a new job ending with this class) is free.
  void offer_moves(std::size_t s, std::size_t f, std::size_t low, std::size_t high, double charge,
                   bool free_end, TableBuffers& buffers, std::size_t source) {
    if (high == 0) return;  // none of this class: only m = 0
    const std::vector<double>& shifted = buffers.shifted[source];
    const std::vector<std::uint8_t>& from = buffers.layer[source];
    std::vector<std::size_t>& window = buffers.window;  // monotone deque of a' by decreasing
                                                        // shifted[a']
    // at(s, a) = max over m of source(a - m) - price * m - charge. With a' = a - m that is
    // -price * a + max over a' of (source(a') + price * a'), a maximum over a window
    // [a - high, a - low] that slides with a: a monotone deque does it in O(W).
    std::size_t head = 0, tail = 0;  // deque holds a' in [a - high, a - 1] with a' >= first
    const std::size_t first = free_end ? 1 : 0;  // a' = 0 is offered apart, free
    const std::size_t fewest = std::max<std::size_t>(low, 1);
    std::size_t next = first;
    for (std::size_t a = 1; a < width_; ++a) {
      Cell& cell = at(s, a, f);
      const double base = -price_[s] * static_cast<double>(a);
      if (a >= fewest) {
        for (; next <= a - fewest; ++next) {
          if (shifted[next] == kNone) continue;
          while (tail > head && shifted[window[tail - 1]] <= shifted[next]) --tail;
          window[tail++] = next;
        }
      }
      while (tail > head && window[head] + high < a) ++head;
      if (tail > head) {
        const std::size_t a2 = window[head];
        cell.offer(shifted[a2] + base - charge, static_cast<int>(a - a2), from[a2]);
      }
      if (free_end && a >= low && a <= high && shifted[0] != kNone) {
        cell.offer(shifted[0] + base, static_cast<int>(a), from[0]);
      }
    }
  }

  double segment_value(std::size_t s, std::size_t a) const {
    return s <= last_
               ? problem_.segment_length(s) * job_.running_rate(*mode_.on, static_cast<int>(a))
               : 0.0;
  }

  // The forced-shrink charge of the group ending with class s when the job took nodes of it
  // and `rest` nodes are alive above it.
  double group_charge(std::size_t s, std::size_t rest) const {
    if (held_) return problem_.classes.end_s[s] < problem_.classes.end_s[last_] ? charge_ : 0.0;
    return rest > 0 ? charge_ : 0.0;
  }

  // `taken`: whether the job took nodes of s's group below s; the group's charge is paid at its
  // top class (a bound on the way, paid late, only prunes less).
  bool descend(std::size_t s, std::size_t a, double partial, bool taken, double threshold,
               std::vector<int>& counts,
               const std::function<bool(std::span<const int>, double)>& visit) const {
    if (s == counts.size()) return a != 0 || visit(counts, partial);
    const double here = partial + segment_value(s, a);
    const bool top = problem_.ends_group(s);
    for (int m = mode_.low[s]; m <= std::min(mode_.high[s], static_cast<int>(a)); ++m) {
      const std::size_t rest = a - static_cast<std::size_t>(m);
      const bool group_taken = taken || m > 0;
      double value = here - price_[s] * m;
      if (top && group_taken) value -= group_charge(s, rest);
      if (value + best_at(s + 1, rest).value < threshold) continue;
      counts[s] = m;
      if (!descend(s + 1, rest, value, !top && group_taken, threshold, counts, visit)) return false;
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
  std::size_t layers_ = 1;
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

}  // namespace gaptrain::allocator
