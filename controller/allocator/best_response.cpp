#include "allocator/best_response.hpp"

#include <algorithm>

namespace gaptrain {

namespace {

constexpr double kNone = JobResponse::kNone;

// The two best values reaching one DP state, and the class count that led to the best.
struct TopTwo {
  double first = kNone;
  double second = kNone;
  int first_count = 0;

  void offer(double best_candidate, double second_candidate, int count) {
    if (best_candidate > first) {
      second = std::max(first, second_candidate);
      first = best_candidate;
      first_count = count;
    } else {
      second = std::max(second, best_candidate);
    }
  }
};

// One of the job's modes (docs/allocator.md): its count vectors are those with
// low[c] <= m_c <= high[c] and total_low <= sum m <= total_high.
struct Mode {
  std::vector<int> low, high;
  int total_low = 0, total_high = 0;
  double cost = 0.0;  // decided-rescale cost of choosing this mode
};

std::vector<Mode> modes_of(const ClassedJob& job, std::span<const int> limit) {
  const std::size_t classes = job.held.size();
  std::vector<Mode> modes;
  const int shrink_high = std::min(job.held_total - 1, job.max_nodes);
  if (job.held_total > 0 && job.min_nodes <= shrink_high) {
    Mode shrink{std::vector<int>(classes, 0), std::vector<int>(classes, 0), job.min_nodes,
                shrink_high, -job.down_cost_s * job.current_rate};
    for (std::size_t c = 0; c < classes; ++c) shrink.high[c] = std::min(job.held[c], limit[c]);
    shrink.low[static_cast<std::size_t>(job.batch_class)] = 1;  // keeps its batch host
    modes.push_back(std::move(shrink));
  }
  const bool held_fits = std::equal(job.held.begin(), job.held.end(), limit.begin(),
                                    [](int held, int cap) { return held <= cap; });
  const int grow_low = std::max(job.held_total + 1, job.min_nodes);
  if (grow_low <= job.max_nodes && held_fits) {
    Mode grow{job.held, std::vector<int>(classes, 0), grow_low, job.max_nodes,
              -job.up_cost_s * job.current_rate};
    for (std::size_t c = 0; c < classes; ++c) grow.high[c] = std::min(limit[c], job.max_nodes);
    modes.push_back(std::move(grow));
  }
  return modes;
}

// The dynamic program of one mode: table[s][a] holds the two best priced values of the choices
// for classes >= s that leave a_s = a nodes alive in segment s (segment values included).
class ModeTable {
 public:
  ModeTable(const ClassedProblem& problem, const ClassedJob& job, const Mode& mode,
            std::span<const double> price)
      : problem_(problem), job_(job), mode_(mode), price_(price) {
    const std::size_t classes = problem.class_count();
    held_ = job.held_total > 0;
    last_ = held_ ? static_cast<std::size_t>(job.batch_class) : classes - 1;
    charge_ = job.down_cost_s * job.reclaim_rate;
    width_ = static_cast<std::size_t>(mode.total_high) + 1;
    table_.assign((classes + 1) * width_, TopTwo{});
    at(classes, 0).first = 0.0;
    for (std::size_t s = classes; s-- > 0;) {
      // Push from the reachable states of class s + 1 only: with few classes most are empty.
      for (std::size_t from = 0; from < width_; ++from) {
        const TopTwo& source = at(s + 1, from);
        if (source.first == kNone) continue;
        for (int m = mode.low[s]; m <= mode.high[s]; ++m) {
          const std::size_t a = from + static_cast<std::size_t>(m);
          if (a >= width_) break;
          const double step = this->step(s, m, a);
          at(s, a).offer(source.first + step, source.second + step, m);
        }
      }
      for (std::size_t a = 0; a < width_; ++a) {
        TopTwo& cell = at(s, a);
        if (cell.first == kNone) continue;
        const double progress = segment_value(s, a);
        cell.first += progress;
        if (cell.second != kNone) cell.second += progress;
      }
    }
  }

  // Adds the mode's best options to `top`, and its best count vector to `counts` if it wins.
  void offer_best(TopTwo& top, std::vector<int>& counts) const {
    TopTwo total;
    std::size_t best_total = 0;
    for (int a = mode_.total_low; a <= mode_.total_high; ++a) {
      const TopTwo& cell = at(0, static_cast<std::size_t>(a));
      if (cell.first > total.first) best_total = static_cast<std::size_t>(a);
      total.offer(cell.first, cell.second, a);
    }
    if (total.first == kNone) return;
    const double best = total.first + mode_.cost;
    if (best > top.first) {
      counts.assign(problem_.class_count(), 0);
      std::size_t a = best_total;
      for (std::size_t s = 0; s < counts.size(); ++s) {
        counts[s] = at(s, a).first_count;
        a -= static_cast<std::size_t>(counts[s]);
      }
    }
    top.offer(best, total.second == kNone ? kNone : total.second + mode_.cost, 0);
  }

  // Depth-first over classes, pruned by the table's best completions.
  bool visit_above(double threshold,
                   const std::function<bool(std::span<const int>, double)>& visit) const {
    std::vector<int> counts(problem_.class_count(), 0);
    for (int a = mode_.total_low; a <= mode_.total_high; ++a) {
      const auto au = static_cast<std::size_t>(a);
      if (at(0, au).first + mode_.cost < threshold) continue;
      if (!descend(0, au, mode_.cost, threshold, counts, visit)) return false;
    }
    return true;
  }

 private:
  TopTwo& at(std::size_t s, std::size_t a) { return table_[s * width_ + a]; }
  const TopTwo& at(std::size_t s, std::size_t a) const { return table_[s * width_ + a]; }

  double segment_value(std::size_t s, std::size_t a) const {
    return s <= last_ ? problem_.segment_length(s) * job_.running_rate(static_cast<int>(a)) : 0.0;
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
      if (value + at(s + 1, rest).first < threshold) continue;
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
  std::vector<TopTwo> table_;
};

double priced(std::span<const double> price, std::span<const int> counts) {
  double sum = 0.0;
  for (std::size_t c = 0; c < counts.size(); ++c) sum += price[c] * counts[c];
  return sum;
}

bool can_stay_within(const ClassedJob& job, std::span<const int> limit) {
  if (job.held_total == 0 || job.held_total < job.min_nodes || job.held_total > job.max_nodes) {
    return false;
  }
  return std::equal(job.held.begin(), job.held.end(), limit.begin(),
                    [](int held, int cap) { return held <= cap; });
}

double off_value(const ClassedJob& job) {
  return job.held_total > 0 ? -job.down_cost_s * job.current_rate : 0.0;
}

}  // namespace

JobResponse best_response(const ClassedProblem& problem, std::size_t j,
                          std::span<const double> price, std::span<const int> limit) {
  const ClassedJob& job = problem.jobs[j];
  TopTwo top;
  std::vector<int> counts(problem.class_count(), 0);
  top.offer(off_value(job), kNone, 0);
  if (can_stay_within(job, limit)) {
    const double stay = job_value(problem, j, job.held) - priced(price, job.held);
    if (stay > top.first) counts = job.held;
    top.offer(stay, kNone, 0);
  }
  for (const Mode& mode : modes_of(job, limit)) {
    ModeTable(problem, job, mode, price).offer_best(top, counts);
  }
  return {top.first, std::move(counts), top.second};
}

bool for_each_option_above(const ClassedProblem& problem, std::size_t j,
                           std::span<const double> price, double threshold,
                           const std::function<bool(std::span<const int>, double)>& visit) {
  const ClassedJob& job = problem.jobs[j];
  const std::vector<int> off(problem.class_count(), 0);
  if (off_value(job) >= threshold && !visit(off, off_value(job))) return false;
  const std::span<const int> limit = problem.classes.size;
  if (can_stay_within(job, limit)) {
    const double stay = job_value(problem, j, job.held) - priced(price, job.held);
    if (stay >= threshold && !visit(job.held, stay)) return false;
  }
  for (const Mode& mode : modes_of(job, limit)) {
    if (!ModeTable(problem, job, mode, price).visit_above(threshold, visit)) return false;
  }
  return true;
}

}  // namespace gaptrain
