#include "allocator/search/shortfall_search.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>
#include <optional>
#include <utility>

#include "allocator/search/float_bound.hpp"
#include "allocator/search/suffix_bounds.hpp"
#include "allocator/search/usage_key.hpp"

namespace gaptrain::allocator {

namespace {

// The depth-first search visits at most this many partial allocations per one it may remember.
constexpr std::size_t kVisitsPerRemembered = 8;

// One job's options that fit and fall within the cutoff, cheapest first (so a partial
// allocation stops at the first option that overshoots).
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

// Jobs by how many patterns their options have in the scarce classes (every class but the
// largest): most first, so that deciding them early lets the bound of the remaining (mostly
// interchangeable) jobs prune, or fewest first, so that the jobs left at the deep end can fill
// whatever the others leave.
std::vector<std::size_t> search_order(const ShortfallProblem& problem, bool most_patterns_first) {
  const std::size_t classes = problem.capacity.size();
  const std::size_t largest = largest_class(problem.capacity);
  std::vector<std::size_t> patterns(problem.jobs.size());
  // Per option a 64-bit FNV-1a hash of its counts in the scarce classes, sorted to count the
  // distinct ones (this runs at every cutoff, on thousands of options: sorting vectors was 9% of
  // a 100-node solve). Two patterns sharing a hash would only nudge this order, never exactness.
  std::vector<std::uint64_t> hashes;
  for (std::size_t j = 0; j < problem.jobs.size(); ++j) {
    hashes.clear();
    for (const std::vector<int>& counts : problem.jobs[j].counts) {
      std::uint64_t h = 0xcbf29ce484222325ULL;
      for (std::size_t c = 0; c < classes; ++c) {
        if (c != largest) h = (h ^ static_cast<std::uint32_t>(counts[c])) * 0x100000001b3ULL;
      }
      hashes.push_back(h);
    }
    std::sort(hashes.begin(), hashes.end());
    patterns[j] =
        static_cast<std::size_t>(std::unique(hashes.begin(), hashes.end()) - hashes.begin());
  }
  std::vector<std::size_t> order(problem.jobs.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return most_patterns_first ? patterns[a] > patterns[b] : patterns[a] < patterns[b];
  });
  return order;
}

// The states after one job: usage key, shortfall so far, and the way back (previous state,
// option taken). Keys are found through an open-addressing hash index.
struct Stage {
  std::vector<std::uint64_t> key;
  std::vector<double> shortfall;
  std::vector<std::uint32_t> parent;
  std::vector<std::uint32_t> option;
};

// A 64-bit mix (MurmurHash3's finalizer): packed usages differ in few low bits of each field.
std::size_t hash(std::uint64_t key) {
  key ^= key >> 33;
  key *= 0xff51afd7ed558ccdULL;
  key ^= key >> 33;
  return static_cast<std::size_t>(key);
}

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

// Everything both searches share: the jobs in search order as candidate lists, and the bounds.
struct Prepared {
  KeyLayout layout;
  std::vector<std::size_t> order;              // job of each stage
  std::vector<std::vector<Candidate>> stages;  // per stage: the job's candidates
};

// Total shortfall of a complete allocation: its shortfall so far plus the unused nodes at their
// price (summed as SuffixBounds sums its last row, so the two agree to the bit).
double with_unused(double shortfall, std::uint64_t key, const ShortfallProblem& problem,
                   const KeyLayout& layout) {
  double unused = 0.0;
  for (std::size_t c = 0; c < problem.capacity.size(); ++c) {
    unused += problem.price[c] * (problem.capacity[c] - layout.field(key, c));
  }
  return shortfall + unused;
}

// The failures of one depth-first pass: (stage, usage) -> the least shortfall the search left
// it with, without success. Open addressing with the key beside its value, so that a probe
// touches one cache line; it doubles as it fills and stops taking entries at its budget.
class FailureMemo {
 public:
  explicit FailureMemo(std::size_t budget) : budget_(budget) { slots_.assign(1024, Slot{}); }

  void clear() {
    std::fill(slots_.begin(), slots_.end(), Slot{});
    size_ = 0;
  }
  // The least shortfall (stage, usage) failed with in this pass, or infinity.
  double failed(std::uint32_t stage, std::uint64_t usage) const {
    for (std::size_t at = start(stage, usage);; at = (at + 1) & (slots_.size() - 1)) {
      const Slot& slot = slots_[at];
      if (slot.stage == kFree) return kInfinity;
      if (slot.stage == stage && slot.usage == usage) return slot.shortfall;
    }
  }
  // Asks the memory for the line (stage, usage) would be looked up in: a lookup misses the
  // cache almost always (a failure is looked up a few times among millions), and the search
  // knows its next visits a while before it makes them.
  void prefetch(std::uint32_t stage, std::uint64_t usage) const {
    __builtin_prefetch(&slots_[start(stage, usage)]);
  }
  // Records that (stage, usage) failed with `shortfall`; past the budget only lowers entries
  // already there (the search goes on, forgetting, which costs time but not exactness).
  void remember(std::uint32_t stage, std::uint64_t usage, double shortfall) {
    std::size_t at = start(stage, usage);
    for (;; at = (at + 1) & (slots_.size() - 1)) {
      Slot& slot = slots_[at];
      if (slot.stage == kFree) break;
      if (slot.stage == stage && slot.usage == usage) {
        slot.shortfall = std::min(slot.shortfall, shortfall);
        return;
      }
    }
    if (size_ >= budget_) return;
    slots_[at] = {usage, shortfall, stage};
    if (2 * ++size_ > slots_.size()) grow();
  }

 private:
  static constexpr std::uint32_t kFree = std::numeric_limits<std::uint32_t>::max();
  struct Slot {
    std::uint64_t usage = 0;
    double shortfall = 0.0;
    std::uint32_t stage = kFree;
  };
  std::size_t start(std::uint32_t stage, std::uint64_t usage) const {
    return hash(usage ^ (std::uint64_t{stage} * 0x9e3779b97f4a7c15ULL)) & (slots_.size() - 1);
  }
  void grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(old.size() * 2, Slot{});
    for (const Slot& slot : old) {
      if (slot.stage == kFree) continue;
      std::size_t at = start(slot.stage, slot.usage);
      while (slots_[at].stage != kFree) at = (at + 1) & (slots_.size() - 1);
      slots_[at] = slot;
    }
  }

  std::vector<Slot> slots_;
  std::size_t size_ = 0;
  std::size_t budget_;
};

// Depth-first search with iterative deepening (IDA*) on shortfall + bound. A pass with limit
// `limit` explores every partial allocation within it, children in order of that sum, and
// remembers the (stage, usage) pairs it left without success together with the least shortfall
// they were reached with: arriving there again with no less shortfall cannot succeed either.
// An exhausted pass proves the least total exceeds the limit, and the least sum it pruned is
// the next lower bound.
// What the runs of the portfolio below prove and find together.
struct Proof {
  double lower = 0.0;       // no allocation falls short by less
  double best = kInfinity;  // the least total shortfall found
  std::vector<int> choice;  // per job: the option of that allocation
};

class DeepeningSearch {
 public:
  DeepeningSearch(const ShortfallProblem& problem, const Prepared& prepared,
                  const SuffixBounds& bounds, FailureMemo& failed,
                  std::chrono::steady_clock::time_point deadline)
      : problem_(problem),
        prepared_(prepared),
        bounds_(bounds),
        deadline_(deadline),
        failed_(failed),
        children_(prepared.stages.size()),
        pick_(prepared.stages.size()) {}

  enum class End {
    found,    // `proof.best` is within the tolerance of `proof.lower`
    none,     // nothing within the cutoff
    stopped,  // past `visits` or the deadline
  };

  // Passes from `proof.lower` until an allocation within the tolerance of the lower bound is
  // known, the cutoff is passed, or `visits` visits or the deadline stop it; raises
  // `proof.lower` with every exhausted pass and lowers `proof.best` with every allocation found.
  //
  // A pass's limit is the lower bound plus a window that doubles with every pass that finds
  // nothing (a dense spread of shortfalls would otherwise take one pass per tolerance). Once an
  // allocation further than the tolerance from the lower bound is known, a pass looks for one
  // better by more than the tolerance, its window back to the smallest.
  End run(Proof& proof, std::size_t visits) {
    const double tolerance = problem_.tolerance;
    double window = tolerance;
    stop_at_ = nodes_ + visits;
    stopped_ = false;
    while (true) {
      if (proof.best - proof.lower <= tolerance) return End::found;
      const double limit =
          std::min({problem_.cutoff, proof.lower + window, proof.best - tolerance});
      limit_ = limit;
      next_ = kInfinity;
      failed_.clear();
      if (descend(0, 0, 0.0)) {
        proof.best = found_;
        proof.choice.assign(problem_.jobs.size(), 0);
        for (std::size_t s = 0; s < pick_.size(); ++s) {
          proof.choice[prepared_.order[s]] = static_cast<int>(prepared_.stages[s][pick_[s]].option);
        }
        window = tolerance;
        continue;
      }
      if (stopped_) return End::stopped;
      proof.lower = std::max(proof.lower, std::max(limit, next_));
      if (proof.best == kInfinity && limit >= problem_.cutoff) return End::none;
      window *= 2.0;
    }
  }

  std::size_t nodes() const { return nodes_; }

 private:
  bool descend(std::size_t s, std::uint64_t key, double shortfall) {
    if (++nodes_ > stop_at_ ||
        ((nodes_ & 0x3ff) == 0 && std::chrono::steady_clock::now() >= deadline_)) {
      stopped_ = true;
      return false;
    }
    const std::vector<std::vector<Candidate>>& stages = prepared_.stages;
    if (s == stages.size()) {
      const double total = with_unused(shortfall, key, problem_, prepared_.layout);
      if (total <= limit_) {
        found_ = total;
        return true;
      }
      next_ = std::min(next_, total);
      return false;
    }
    const auto stage = static_cast<std::uint32_t>(s);
    if (failed_.failed(stage, key) <= shortfall) return false;
    std::vector<std::pair<double, std::uint32_t>>& children = children_[s];
    children.clear();
    for (std::uint32_t o = 0; o < stages[s].size(); ++o) {
      const Candidate& option = stages[s][o];
      const double taken = shortfall + option.shortfall;
      if (taken > limit_) {  // and every later option
        next_ = std::min(next_, taken);
        break;
      }
      const double least = taken + bounds_.after(s + 1, key + option.key, limit_ - taken);
      if (least <= limit_) {
        children.emplace_back(least, o);
        failed_.prefetch(stage + 1, key + option.key);
      } else {
        next_ = std::min(next_, least);
      }
    }
    if (s + 1 < stages.size()) {
      // Most children were met before by another path and failed (about two thirds of the
      // visits on 1,000 x 1,000): drop them here, where their lookups, prefetched above,
      // overlap, instead of one cache miss per visit.
      std::erase_if(children, [&](const std::pair<double, std::uint32_t>& child) {
        const Candidate& option = stages[s][child.second];
        return failed_.failed(stage + 1, key + option.key) <= shortfall + option.shortfall;
      });
    }
    std::sort(children.begin(), children.end());
    for (const auto& [least, o] : children) {
      pick_[s] = o;
      const Candidate& option = stages[s][o];
      if (descend(s + 1, key + option.key, shortfall + option.shortfall)) return true;
      if (stopped_) return false;
    }
    failed_.remember(stage, key, shortfall);
    return false;
  }

  const ShortfallProblem& problem_;
  const Prepared& prepared_;
  const SuffixBounds& bounds_;
  const std::chrono::steady_clock::time_point deadline_;
  FailureMemo& failed_;  // shared by the runs, cleared by each pass
  std::vector<std::vector<std::pair<double, std::uint32_t>>> children_;  // per stage: scratch
  std::vector<std::uint32_t> pick_;  // per stage: the path being explored
  double limit_ = 0.0;
  double next_ = kInfinity;  // least shortfall + bound pruned in this pass
  double found_ = 0.0;
  std::size_t nodes_ = 0;
  std::size_t stop_at_ = 0;  // visits after which this run stops
  bool stopped_ = false;
};

// Breadth-first dynamic programme over class usage: after each job, one state per usage with
// its least shortfall, so it is exact however many allocations tie; memory is its limit.
void dynamic_programme(const ShortfallProblem& problem, const Prepared& prepared,
                       const SuffixBounds& bounds, std::size_t state_budget,
                       std::chrono::steady_clock::time_point deadline, ShortfallResult& result) {
  const std::vector<std::vector<Candidate>>& stages = prepared.stages;
  std::vector<Stage> history(stages.size() + 1);
  history[0] = {{0}, {0.0}, {0}, {0}};
  StateIndex index;
  for (std::size_t s = 0; s < stages.size(); ++s) {
    const Stage& from = history[s];
    Stage& to = history[s + 1];
    index.reset(from.key.size());
    for (std::uint32_t i = 0; i < from.key.size(); ++i) {
      if ((i & 0xf) == 0 && std::chrono::steady_clock::now() >= deadline) return;
      for (const Candidate& option : stages[s]) {
        const double shortfall = from.shortfall[i] + option.shortfall;
        if (shortfall > problem.cutoff) break;  // and every later option
        const std::uint64_t key = from.key[i] + option.key;
        if (shortfall + bounds.after(s + 1, key, problem.cutoff - shortfall) > problem.cutoff) {
          continue;
        }
        const auto next = static_cast<std::uint32_t>(to.key.size());
        const std::uint32_t slot = index.find_or_add(key, next);
        if (slot == StateIndex::kEmpty) {
          if (result.states + to.key.size() >= state_budget) return;
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
      result.lower_bound = problem.cutoff;
      return;
    }
  }

  const Stage& last = history.back();
  std::size_t best = 0;
  double best_total = kInfinity;
  for (std::size_t i = 0; i < last.key.size(); ++i) {
    const double total = with_unused(last.shortfall[i], last.key[i], problem, prepared.layout);
    if (total < best_total) {
      best_total = total;
      best = i;
    }
  }
  if (best_total > problem.cutoff) {
    result.outcome = ShortfallResult::Outcome::none;
    result.lower_bound = problem.cutoff;
    return;
  }
  result.outcome = ShortfallResult::Outcome::found;
  result.shortfall = best_total;
  result.lower_bound = best_total;
  result.choice.assign(problem.jobs.size(), 0);
  std::size_t state = best;
  for (std::size_t s = stages.size(); s-- > 0;) {
    result.choice[prepared.order[s]] = static_cast<int>(history[s + 1].option[state]);
    state = history[s + 1].parent[state];
  }
}

}  // namespace

namespace {

enum class Method { deepening_then_states, states };

// The jobs in one order, and the bounds that go with it.
struct Way {
  Prepared prepared;
  std::optional<SuffixBounds> bounds;
};

// The depth-first search's first run may visit this many partial allocations; each round over
// the orders doubles it.
constexpr std::size_t kFirstSlice = std::size_t{1} << 16;

ShortfallResult search(const ShortfallProblem& problem, Method method, std::size_t budget,
                       std::chrono::steady_clock::time_point deadline) {
  ShortfallResult result;
  result.lower_bound = problem.lower_bound;
  const std::optional<KeyLayout> layout = KeyLayout::fit(problem.capacity);
  if (!layout) return result;  // usage vectors too wide to pack: gave up
  std::vector<Way> ways;
  ways.reserve(2);  // the searches below hold references into it
  // The jobs in one order, with their bounds. False when that ends the search: a job has no
  // option within the cutoff (none), or the deadline passed while the bounds were made.
  const auto add_way = [&](std::vector<std::size_t> order, bool with_pairs) {
    Prepared prepared{*layout, std::move(order), {}};
    for (const std::size_t j : prepared.order) {
      prepared.stages.push_back(
          candidates_of(problem.jobs[j], prepared.layout, problem.capacity, problem.cutoff));
      if (prepared.stages.back().empty()) {
        result.outcome = ShortfallResult::Outcome::none;
        result.lower_bound = problem.cutoff;
        return false;
      }
    }
    Way& way = ways.emplace_back(Way{std::move(prepared), std::nullopt});
    way.bounds.emplace(way.prepared.stages, way.prepared.layout, problem.capacity, problem.price,
                       deadline);
    return way.bounds->complete() &&
           (!with_pairs ||
            way.bounds->add_pair_tables(way.prepared.stages, problem.price, deadline));
  };
  if (!add_way(search_order(problem, true), false)) return result;
  const double root = std::max(problem.lower_bound, ways.front().bounds->after(0, 0));
  if (root > problem.cutoff) {
    result.outcome = ShortfallResult::Outcome::none;
    result.lower_bound = problem.cutoff;
    return result;
  }

  if (method == Method::deepening_then_states) {
    // Which order proves an instance fast differs by orders of magnitude from one instance to
    // the next (docs/benchmarks-history.md), so when the first run stops, runs alternate between
    // the two orders with doubling visit budgets, each starting from what the others proved and
    // found.
    FailureMemo failed(budget);
    std::vector<DeepeningSearch> searches;
    searches.reserve(2);
    searches.emplace_back(problem, ways.front().prepared, *ways.front().bounds, failed, deadline);
    Proof proof{root, kInfinity, {}};
    const std::size_t most = kVisitsPerRemembered * budget;
    auto end = DeepeningSearch::End::stopped;
    bool first_run = true;
    for (std::size_t slice = std::min(kFirstSlice, most);; slice = std::min(2 * slice, most)) {
      for (std::size_t i = 0; i < searches.size(); ++i) {
        end = searches[i].run(proof, slice);
        if (end != DeepeningSearch::End::stopped) break;
        if (std::exchange(first_run, false)) {
          // A hard instance: the pair tables pay for themselves from here on.
          Way& first = ways.front();
          if (!first.bounds->add_pair_tables(first.prepared.stages, problem.price, deadline)) break;
          proof.lower = std::max(proof.lower, first.bounds->after(0, 0));
          std::vector<std::size_t> other = search_order(problem, false);
          if (other == first.prepared.order) continue;
          if (!add_way(std::move(other), true)) break;
          proof.lower = std::max(proof.lower, ways.back().bounds->after(0, 0));
          searches.emplace_back(problem, ways.back().prepared, *ways.back().bounds, failed,
                                deadline);
        }
      }
      if (end != DeepeningSearch::End::stopped || slice == most ||
          std::chrono::steady_clock::now() >= deadline) {
        break;
      }
    }
    for (const DeepeningSearch& run : searches) result.nodes += run.nodes();
    if (!proof.choice.empty()) {  // found, or the best allocation before giving up
      result.choice = std::move(proof.choice);
      result.shortfall = proof.best;
    }
    if (end == DeepeningSearch::End::found) {
      result.outcome = ShortfallResult::Outcome::found;
      result.lower_bound = std::min(proof.lower, proof.best);
      return result;
    }
    if (end == DeepeningSearch::End::none) {
      result.outcome = ShortfallResult::Outcome::none;
      result.lower_bound = problem.cutoff;
      return result;
    }
    result.lower_bound = proof.lower;
    if (std::chrono::steady_clock::now() >= deadline) return result;
  }
  const Way& way = ways.front();
  dynamic_programme(problem, way.prepared, *way.bounds, budget, deadline, result);
  return result;
}

}  // namespace

ShortfallResult least_shortfall(const ShortfallProblem& problem, std::size_t budget,
                                std::chrono::steady_clock::time_point deadline) {
  return search(problem, Method::deepening_then_states, budget, deadline);
}

ShortfallResult least_shortfall_by_states(const ShortfallProblem& problem, std::size_t state_budget,
                                          std::chrono::steady_clock::time_point deadline) {
  return search(problem, Method::states, state_budget, deadline);
}

}  // namespace gaptrain::allocator
