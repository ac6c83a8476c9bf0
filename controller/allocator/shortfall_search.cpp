#include "allocator/shortfall_search.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <numeric>
#include <optional>

namespace gaptrain {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// A state's usage vector packed into one integer, a bit field per class. Each field has room
// for twice its capacity, so adding an option's (fitting) counts never carries into the next
// field before the capacity check sees it.
class KeyLayout {
 public:
  static std::optional<KeyLayout> fit(const std::vector<int>& capacity) {
    KeyLayout layout;
    int bits = 0;
    for (const int c : capacity) {
      const auto width = static_cast<int>(std::bit_width(2U * static_cast<unsigned>(c) + 1U));
      layout.shift_.push_back(bits);
      layout.mask_.push_back((std::uint64_t{1} << width) - 1);
      bits += width;
      if (bits > 64) return std::nullopt;
    }
    return layout;
  }
  std::uint64_t pack(const std::vector<int>& counts) const {
    std::uint64_t key = 0;
    for (std::size_t c = 0; c < counts.size(); ++c) {
      key |= static_cast<std::uint64_t>(counts[c]) << shift_[c];
    }
    return key;
  }
  int field(std::uint64_t key, std::size_t c) const {
    return static_cast<int>((key >> shift_[c]) & mask_[c]);
  }

 private:
  std::vector<int> shift_;
  std::vector<std::uint64_t> mask_;
};

// One job's options in the search's terms, cheapest first (so a state stops at the first option
// that overshoots the cutoff).
struct Candidate {
  std::uint64_t key;
  double shortfall;
  std::uint32_t option;  // index in the job's input options
};

std::vector<Candidate> candidates_of(const ShortfallOptions& job, const KeyLayout& layout,
                                     const std::vector<int>& capacity, double cutoff) {
  std::vector<Candidate> out;
  for (std::size_t o = 0; o < job.counts.size(); ++o) {
    const std::vector<int>& counts = job.counts[o];
    const bool fits = std::equal(counts.begin(), counts.end(), capacity.begin(),
                                 [](int mine, int cap) { return mine <= cap; });
    const double shortfall = std::max(0.0, job.shortfall[o]);
    if (fits && shortfall <= cutoff) {
      out.push_back({layout.pack(counts), shortfall, static_cast<std::uint32_t>(o)});
    }
  }
  std::sort(out.begin(), out.end(),
            [](const Candidate& a, const Candidate& b) { return a.shortfall < b.shortfall; });
  return out;
}

// Jobs whose options differ in the scarce classes first: deciding them early lets the bound of
// the remaining (mostly interchangeable) jobs prune. "Scarce" is every class but the largest.
std::vector<std::size_t> search_order(const ShortfallProblem& problem) {
  const std::size_t classes = problem.capacity.size();
  const auto largest =
      static_cast<std::size_t>(std::max_element(problem.capacity.begin(), problem.capacity.end()) -
                               problem.capacity.begin());
  std::vector<std::size_t> patterns(problem.jobs.size());
  for (std::size_t j = 0; j < problem.jobs.size(); ++j) {
    std::vector<std::vector<int>> scarce;
    for (const std::vector<int>& counts : problem.jobs[j].counts) {
      std::vector<int> part;
      for (std::size_t c = 0; c < classes; ++c) {
        if (c != largest) part.push_back(counts[c]);
      }
      scarce.push_back(std::move(part));
    }
    std::sort(scarce.begin(), scarce.end());
    patterns[j] =
        static_cast<std::size_t>(std::unique(scarce.begin(), scarce.end()) - scarce.begin());
  }
  std::vector<std::size_t> order(problem.jobs.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return patterns[a] > patterns[b]; });
  return order;
}

// bound(s, c, r): the least shortfall jobs s.. of the order can reach with r nodes of class c
// left, counting class c's unused nodes at its price and ignoring the other classes' limits (a
// relaxation, so a lower bound on what any completion adds).
class SuffixBounds {
 public:
  // Stops early, leaving complete() false, once `deadline` passes (the tables cost
  // jobs x classes x capacity, a second at 10,000 nodes with hundreds of open jobs).
  SuffixBounds(const std::vector<std::vector<Candidate>>& stages, const KeyLayout& layout,
               const std::vector<int>& capacity, const std::vector<double>& price,
               std::chrono::steady_clock::time_point deadline)
      : capacity_(capacity) {
    const std::size_t classes = capacity.size();
    offset_.resize(classes + 1, 0);
    for (std::size_t c = 0; c < classes; ++c) {
      offset_[c + 1] = offset_[c] + static_cast<std::size_t>(capacity[c]) + 1;
    }
    width_ = offset_.back();
    table_.assign((stages.size() + 1) * width_, kInfinity);
    for (std::size_t c = 0; c < classes; ++c) {
      for (int r = 0; r <= capacity[c]; ++r) at(stages.size(), c, r) = price[c] * r;
    }
    std::vector<double> cheapest;  // per count m of class c: the job's least shortfall
    for (std::size_t s = stages.size(); s-- > 0;) {
      if (std::chrono::steady_clock::now() >= deadline) return;
      for (std::size_t c = 0; c < classes; ++c) {
        cheapest.assign(static_cast<std::size_t>(capacity[c]) + 1, kInfinity);
        for (const Candidate& option : stages[s]) {
          const auto m = static_cast<std::size_t>(layout.field(option.key, c));
          cheapest[m] = std::min(cheapest[m], option.shortfall);
        }
        for (std::size_t m = 0; m < cheapest.size(); ++m) {
          if (cheapest[m] == kInfinity) continue;
          for (int r = static_cast<int>(m); r <= capacity[c]; ++r) {
            const double via = cheapest[m] + at(s + 1, c, r - static_cast<int>(m));
            at(s, c, r) = std::min(at(s, c, r), via);
          }
        }
      }
    }
    complete_ = true;
  }

  bool complete() const { return complete_; }

  // The largest of the per-class bounds for jobs s.. with `key`'s usage taken, or infinity when
  // the usage exceeds a class.
  double after(std::size_t s, std::uint64_t key, const KeyLayout& layout) const {
    double bound = 0.0;
    for (std::size_t c = 0; c < capacity_.size(); ++c) {
      const int left = capacity_[c] - layout.field(key, c);
      if (left < 0) return kInfinity;
      bound = std::max(bound, at(s, c, left));
    }
    return bound;
  }

 private:
  double& at(std::size_t s, std::size_t c, int r) {
    return table_[s * width_ + offset_[c] + static_cast<std::size_t>(r)];
  }
  double at(std::size_t s, std::size_t c, int r) const {
    return table_[s * width_ + offset_[c] + static_cast<std::size_t>(r)];
  }

  std::vector<int> capacity_;
  std::vector<std::size_t> offset_;
  std::size_t width_ = 0;
  std::vector<double> table_;
  bool complete_ = false;
};

// The states after one job: usage key, shortfall so far, and the way back (previous state,
// option taken). Keys are found through an open-addressing hash index.
struct Stage {
  std::vector<std::uint64_t> key;
  std::vector<double> shortfall;
  std::vector<std::uint32_t> parent;
  std::vector<std::uint32_t> option;
};

// Finds a stage's state by its key: open addressing, each slot holding the key beside the
// state's index so that a probe touches one cache line.
class StateIndex {
 public:
  static constexpr std::uint32_t kEmpty = std::numeric_limits<std::uint32_t>::max();

  void reset(std::size_t expected) {
    std::size_t size = 64;
    while (size < 2 * expected) size *= 2;
    slots_.assign(size, Slot{0, kEmpty});
    mask_ = size - 1;
  }
  // `key`'s state index, or kEmpty after reserving its slot for `next` (the index the caller
  // then gives the new state).
  std::uint32_t find_or_add(std::uint64_t key, std::uint32_t next) {
    std::size_t at = hash(key) & mask_;
    while (slots_[at].index != kEmpty) {
      if (slots_[at].key == key) return slots_[at].index;
      at = (at + 1) & mask_;
    }
    slots_[at] = {key, next};
    if (2 * (static_cast<std::size_t>(next) + 1) > slots_.size()) grow();
    return kEmpty;
  }

 private:
  struct Slot {
    std::uint64_t key;
    std::uint32_t index;
  };
  static std::size_t hash(std::uint64_t key) {
    key ^= key >> 33;
    key *= 0xff51afd7ed558ccdULL;
    key ^= key >> 33;
    return static_cast<std::size_t>(key);
  }
  void grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(old.size() * 2, Slot{0, kEmpty});
    mask_ = slots_.size() - 1;
    for (const Slot& slot : old) {
      if (slot.index == kEmpty) continue;
      std::size_t at = hash(slot.key) & mask_;
      while (slots_[at].index != kEmpty) at = (at + 1) & mask_;
      slots_[at] = slot;
    }
  }
  std::vector<Slot> slots_;
  std::size_t mask_ = 0;
};

}  // namespace

ShortfallResult least_shortfall(const ShortfallProblem& problem, std::size_t state_budget,
                                std::chrono::steady_clock::time_point deadline) {
  ShortfallResult result;
  const std::optional<KeyLayout> layout = KeyLayout::fit(problem.capacity);
  if (!layout) return result;  // usage vectors too wide to pack: gave up
  const std::vector<std::size_t> order = search_order(problem);
  std::vector<std::vector<Candidate>> stages;
  for (const std::size_t j : order) {
    stages.push_back(candidates_of(problem.jobs[j], *layout, problem.capacity, problem.cutoff));
    if (stages.back().empty()) {  // the job has no option within the cutoff
      result.outcome = ShortfallResult::Outcome::none;
      return result;
    }
  }
  const SuffixBounds bounds(stages, *layout, problem.capacity, problem.price, deadline);
  if (!bounds.complete()) return result;

  std::vector<Stage> history(stages.size() + 1);
  history[0] = {{0}, {0.0}, {0}, {0}};
  StateIndex index;
  for (std::size_t s = 0; s < stages.size(); ++s) {
    const Stage& from = history[s];
    Stage& to = history[s + 1];
    index.reset(from.key.size());
    for (std::uint32_t i = 0; i < from.key.size(); ++i) {
      if ((i & 0xf) == 0 && std::chrono::steady_clock::now() >= deadline) return result;
      for (const Candidate& option : stages[s]) {
        const double shortfall = from.shortfall[i] + option.shortfall;
        if (shortfall > problem.cutoff) break;  // and every later option
        const std::uint64_t key = from.key[i] + option.key;
        if (shortfall + bounds.after(s + 1, key, *layout) > problem.cutoff) continue;
        const auto next = static_cast<std::uint32_t>(to.key.size());
        const std::uint32_t slot = index.find_or_add(key, next);
        if (slot == StateIndex::kEmpty) {
          if (result.states + to.key.size() >= state_budget) return result;
          to.key.push_back(key);
          to.shortfall.push_back(shortfall);
          to.parent.push_back(i);
          to.option.push_back(option.option);
        } else if (shortfall < to.shortfall[slot]) {
          to.shortfall[slot] = shortfall;
          to.parent[slot] = i;
          to.option[slot] = option.option;
        }
      }
    }
    result.states += to.key.size();
    if (s > 0) {  // only the way back is needed from here on
      history[s].key = {};
      history[s].shortfall = {};
    }
    if (to.key.empty()) {
      result.outcome = ShortfallResult::Outcome::none;
      return result;
    }
  }

  // Unused nodes count at their price: the total shortfall of each complete allocation.
  const Stage& last = history.back();
  std::size_t best = 0;
  double best_total = kInfinity;
  for (std::size_t i = 0; i < last.key.size(); ++i) {
    double total = last.shortfall[i];
    for (std::size_t c = 0; c < problem.capacity.size(); ++c) {
      total += problem.price[c] * (problem.capacity[c] - layout->field(last.key[i], c));
    }
    if (total < best_total) {
      best_total = total;
      best = i;
    }
  }
  if (best_total > problem.cutoff) {
    result.outcome = ShortfallResult::Outcome::none;
    return result;
  }
  result.outcome = ShortfallResult::Outcome::found;
  result.shortfall = best_total;
  result.choice.assign(problem.jobs.size(), 0);
  std::size_t state = best;
  for (std::size_t s = stages.size(); s-- > 0;) {
    result.choice[order[s]] = static_cast<int>(history[s + 1].option[state]);
    state = history[s + 1].parent[state];
  }
  return result;
}

}  // namespace gaptrain
