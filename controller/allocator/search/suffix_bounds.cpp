#include "allocator/search/suffix_bounds.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <tuple>
#include <utility>

#include "allocator/search/float_bound.hpp"

namespace gaptrain::allocator {

namespace {

// Pools of every combination of scarce classes are built up to this many scarce classes (11
// pools); past it only the pool of all scarce classes.
constexpr std::size_t kMostScarceForEveryPool = 4;

// The pair tables (two per pair of scarce classes) take at most this many cells in all (4 bytes
// each: 64 MiB) and this much work to fill (cells times the options of a stage, summed): on
// 1,000 nodes x 1,000 jobs with hole ends, three pairs of scarce classes of 50-80 nodes take
// 6-9 million cells and 40-80 ms; at 5,000 nodes one pair would take 38 million and seconds.
constexpr std::size_t kMostPairCells = std::size_t{1} << 24;
constexpr std::size_t kMostPairWork = std::size_t{1} << 29;

// The residue table (residue_table.hpp): every class modulo 4, built within these cells and
// this work (4 classes: 256 cells a stage; 7 classes would take 16,384). Modulo 8 is tighter in
// principle but its 4,096 cells a stage cost more time than they save (measured:
// docs/benchmarks-history.md), and tables with one class exact beside the residues of the others,
// too.
constexpr int kResidueModulus = 4;
// With fewer jobs to decide the residue table comes with the pair tables, once the search proves
// hard: a handful of jobs takes the search a few visits, and the table (every option sorted by
// its residues, at every cutoff) cost more than it saved (100 nodes x 10 jobs instance 12:
// 4.8 -> 5.5 ms).
constexpr std::size_t kLeastStagesForEarlyResidues = 32;
constexpr std::size_t kMostResidueCells = std::size_t{1} << 22;
constexpr std::size_t kMostResidueWork = std::size_t{1} << 28;

// Options compared against at most this many of the stage's least-shortfall options when
// their shortfalls are split (any reference keeps the bound valid; the nearest makes it tight).
constexpr std::size_t kMostReferences = 64;

// Per option (row-major, options x classes): its shortfall above the stage's least, split over
// the classes. The reference is the least-shortfall option nearest to it, the scarce classes
// counting most; the excess goes to the scarce classes in proportion to how far the option is
// from the reference there, or to the largest class when the two agree on every scarce class.
// The shares add up to the excess, at most the shortfall: all the split bound needs.
std::vector<double> split_shortfalls(const std::vector<Candidate>& stage, const KeyLayout& layout,
                                     std::size_t largest) {
  const std::size_t classes = layout.classes();
  std::vector<double> shares(stage.size() * classes, 0.0);
  double least = kInfinity;
  for (const Candidate& option : stage) least = std::min(least, option.shortfall);
  const double tie = 1e-9 * std::max(1.0, std::abs(least));
  std::vector<std::size_t> references;
  for (std::size_t o = 0; o < stage.size() && references.size() < kMostReferences; ++o) {
    if (stage[o].shortfall <= least + tie) references.push_back(o);
  }
  const auto apart = [&](std::size_t a, std::size_t b, std::size_t c) {
    return std::abs(layout.field(stage[a].key, c) - layout.field(stage[b].key, c));
  };
  for (std::size_t o = 0; o < stage.size(); ++o) {
    const double excess = stage[o].shortfall - least;
    if (excess <= tie) continue;
    std::size_t nearest = references.front();
    double nearest_distance = kInfinity;
    for (const std::size_t ref : references) {
      double distance = 0.0;
      for (std::size_t c = 0; c < classes; ++c)
        distance += apart(o, ref, c) * (c == largest ? 1e-3 : 1.0);
      if (distance < nearest_distance) {
        nearest_distance = distance;
        nearest = ref;
      }
    }
    int spread = 0;
    for (std::size_t c = 0; c < classes; ++c) {
      if (c != largest) spread += apart(o, nearest, c);
    }
    double* share = &shares[o * classes];
    if (spread == 0) {
      share[largest] = excess;
      continue;
    }
    for (std::size_t c = 0; c < classes; ++c) {
      if (c != largest) share[c] = excess * apart(o, nearest, c) / spread;
    }
  }
  return shares;
}

// Options over all stages.
std::size_t option_count(const std::vector<std::vector<Candidate>>& stages) {
  std::size_t options = 0;
  for (const std::vector<Candidate>& stage : stages) options += stage.size();
  return options;
}

std::vector<std::size_t> scarce_classes(std::size_t classes, std::size_t largest) {
  std::vector<std::size_t> scarce;
  for (std::size_t c = 0; c < classes; ++c) {
    if (c != largest) scarce.push_back(c);
  }
  return scarce;
}

// The pairs of scarce classes whose exact two-class tables fit the budgets, smallest first.
std::vector<std::pair<std::size_t, std::size_t>> affordable_pairs(
    const std::vector<std::vector<Candidate>>& stages, const std::vector<int>& capacity,
    std::size_t largest) {
  const std::vector<std::size_t> scarce = scarce_classes(capacity.size(), largest);
  const std::size_t options = option_count(stages);
  std::vector<std::pair<std::size_t, std::size_t>> pairs;
  for (std::size_t i = 0; i < scarce.size(); ++i) {
    for (std::size_t k = i + 1; k < scarce.size(); ++k) pairs.emplace_back(scarce[i], scarce[k]);
  }
  const auto per_stage = [&](const std::pair<std::size_t, std::size_t>& pair) {
    return (static_cast<std::size_t>(capacity[pair.first]) + 1) *
           (static_cast<std::size_t>(capacity[pair.second]) + 1);
  };
  std::sort(pairs.begin(), pairs.end(),
            [&](const auto& x, const auto& y) { return per_stage(x) < per_stage(y); });
  std::size_t cells = 0;
  std::size_t work = 0;
  std::vector<std::pair<std::size_t, std::size_t>> out;
  for (const auto& pair : pairs) {
    cells += 2 * (stages.size() + 1) * per_stage(pair);
    work += 2 * options * per_stage(pair);
    if (cells > kMostPairCells || work > kMostPairWork) break;
    out.push_back(pair);
  }
  return out;
}

// The pools the group bounds take: every combination of two or more scarce classes (all when
// there are many), and all classes together.
std::vector<std::vector<std::size_t>> pools(std::size_t classes, std::size_t largest) {
  std::vector<std::size_t> scarce = scarce_classes(classes, largest);
  std::vector<std::vector<std::size_t>> out;
  if (scarce.size() <= kMostScarceForEveryPool) {
    for (unsigned mask = 1; mask < (1U << scarce.size()); ++mask) {
      if (std::popcount(mask) < 2) continue;
      std::vector<std::size_t> members;
      for (std::size_t i = 0; i < scarce.size(); ++i) {
        if (mask >> i & 1U) members.push_back(scarce[i]);
      }
      out.push_back(std::move(members));
    }
  } else {
    out.push_back(scarce);
  }
  if (classes >= 2) {
    scarce.push_back(largest);
    out.push_back(std::move(scarce));
  }
  return out;
}

}  // namespace

SuffixBounds::Table SuffixBounds::empty_table(std::size_t stages, int capacity, double price) {
  Table table;
  table.capacity = capacity;
  table.least.assign((stages + 1) * (static_cast<std::size_t>(capacity) + 1), kInfinity);
  double* last = table.row(stages);
  for (int r = 0; r <= capacity; ++r) last[r] = price * r;
  return table;
}

void SuffixBounds::fill_row(Table& table, std::size_t s, const std::vector<double>& cheapest) {
  double* row = table.row(s);
  const double* next = table.row(s + 1);
  for (int m = 0; m <= table.capacity; ++m) {
    const double cost = cheapest[static_cast<std::size_t>(m)];
    if (cost == kInfinity) continue;
    for (int r = m; r <= table.capacity; ++r) row[r] = std::min(row[r], cost + next[r - m]);
  }
}

SuffixBounds::SuffixBounds(const std::vector<std::vector<Candidate>>& stages,
                           const KeyLayout& layout, const std::vector<int>& capacity,
                           const std::vector<double>& price,
                           std::chrono::steady_clock::time_point deadline)
    : layout_(layout), capacity_(capacity) {
  const std::size_t classes = capacity.size();
  const std::size_t n = stages.size();
  for (std::size_t c = 0; c < classes; ++c) {
    single_.push_back(empty_table(n, capacity[c], price[c]));
    split_.push_back(empty_table(n, capacity[c], price[c]));
  }
  const std::size_t largest = largest_class(capacity);
  for (std::vector<std::size_t>& members : pools(classes, largest)) {
    int pooled = 0;
    double cheapest_price = kInfinity;
    for (const std::size_t c : members) {
      pooled += capacity[c];
      cheapest_price = std::min(cheapest_price, price[c]);
    }
    groups_.push_back({std::move(members), empty_table(n, pooled, cheapest_price)});
  }

  std::vector<double> cheapest;  // per node count: the stage's least cost
  const auto fill = [&](Table& table, std::size_t s, const auto& count_of, const auto& cost_of) {
    cheapest.assign(static_cast<std::size_t>(table.capacity) + 1, kInfinity);
    for (std::size_t o = 0; o < stages[s].size(); ++o) {
      double& least = cheapest[static_cast<std::size_t>(count_of(stages[s][o].key))];
      least = std::min(least, cost_of(o));
    }
    fill_row(table, s, cheapest);
  };
  for (std::size_t s = n; s-- > 0;) {
    if (std::chrono::steady_clock::now() >= deadline) return;
    const std::vector<Candidate>& stage = stages[s];
    const std::vector<double> shares = split_shortfalls(stage, layout, largest);
    for (std::size_t c = 0; c < classes; ++c) {
      const auto count = [&](std::uint64_t key) { return layout.field(key, c); };
      fill(single_[c], s, count, [&](std::size_t o) { return stage[o].shortfall; });
      fill(split_[c], s, count, [&](std::size_t o) { return shares[o * classes + c]; });
    }
    for (Group& group : groups_) {
      const auto pooled = [&](std::uint64_t key) {
        int sum = 0;
        for (const std::size_t c : group.members) sum += layout.field(key, c);
        return sum;
      };
      fill(group.table, s, pooled, [&](std::size_t o) { return stage[o].shortfall; });
    }
  }
  complete_ =
      stages.size() < kLeastStagesForEarlyResidues || add_residue_table(stages, price, deadline);
}

namespace {

// One stage's least cost per (nodes of a, nodes of b): options often share them.
struct PairUse {
  int a, b;
  double cost;
};

// Row s of a pair table from row s + 1 (`next`), given the stage's uses: the least in double
// (`scratch`), stored as the largest float not above it.
void fill_pair_row(int capacity_a, int capacity_b, const std::vector<PairUse>& uses,
                   const float* next, std::vector<double>& scratch, float* row) {
  const auto width = static_cast<std::size_t>(capacity_b) + 1;
  scratch.assign((static_cast<std::size_t>(capacity_a) + 1) * width, kInfinity);
  for (const PairUse& use : uses) {
    for (int ra = use.a; ra <= capacity_a; ++ra) {
      double* to = scratch.data() + static_cast<std::size_t>(ra) * width;
      const float* from = next + static_cast<std::size_t>(ra - use.a) * width;
      const auto skip = static_cast<std::size_t>(use.b);
      for (std::size_t rb = skip; rb < width; ++rb) {
        to[rb] = std::min(to[rb], use.cost + static_cast<double>(from[rb - skip]));
      }
    }
  }
  for (std::size_t i = 0; i < scratch.size(); ++i) row[i] = float_at_most(scratch[i]);
}

}  // namespace

bool SuffixBounds::add_pair_tables(const std::vector<std::vector<Candidate>>& stages,
                                   const std::vector<double>& price,
                                   std::chrono::steady_clock::time_point deadline) {
  if (!residue_ && !add_residue_table(stages, price, deadline)) return false;
  const std::size_t classes = capacity_.size();
  const std::size_t n = stages.size();
  const std::size_t largest = largest_class(capacity_);
  const std::vector<std::size_t> scarce = scarce_classes(classes, largest);
  std::vector<std::vector<double>> shares(n);  // as the split tables took them
  for (std::size_t s = 0; s < n; ++s) shares[s] = split_shortfalls(stages[s], layout_, largest);
  std::vector<PairUse> uses;
  const auto uses_of = [&](const PairTable& table, std::size_t s) {
    uses.clear();
    for (std::size_t o = 0; o < stages[s].size(); ++o) {
      const Candidate& option = stages[s][o];
      double cost = option.shortfall;
      for (const std::size_t c : table.others) cost -= shares[s][o * classes + c];
      uses.push_back(
          {layout_.field(option.key, table.a), layout_.field(option.key, table.b), cost});
    }
    std::sort(uses.begin(), uses.end(), [](const PairUse& x, const PairUse& y) {
      return std::tie(x.a, x.b, x.cost) < std::tie(y.a, y.b, y.cost);
    });
    uses.erase(
        std::unique(uses.begin(), uses.end(),
                    [](const PairUse& x, const PairUse& y) { return x.a == y.a && x.b == y.b; }),
        uses.end());
  };
  // The unused nodes of a and b at their prices, summed in class order as the search sums a
  // complete allocation's, so that this never exceeds that sum by a rounding.
  const auto fill_last = [&](const PairTable& table, float* row) {
    for (int ra = 0; ra <= table.capacity_a; ++ra) {
      for (int rb = 0; rb <= table.capacity_b; ++rb) {
        row[table.cell(ra, rb)] = float_at_most(price[table.a] * ra + price[table.b] * rb);
      }
    }
  };
  std::vector<double> scratch;
  for (const auto& [a, b] : affordable_pairs(stages, capacity_, largest)) {
    PairTable exact;
    exact.a = a;
    exact.b = b;
    exact.capacity_a = capacity_[a];
    exact.capacity_b = capacity_[b];
    PairTable less_shares = exact;
    for (const std::size_t c : scarce) {
      if (c != a && c != b) less_shares.others.push_back(c);
    }
    for (PairTable* table : {&exact, &less_shares}) {
      if (table == &less_shares && table->others.empty()) break;  // the same as `exact`
      const std::size_t cells = table->cells_per_stage();
      table->least.resize((n + 1) * cells);
      fill_last(*table, &table->least[n * cells]);
      for (std::size_t s = n; s-- > 0;) {
        if (std::chrono::steady_clock::now() >= deadline) return false;
        uses_of(*table, s);
        fill_pair_row(table->capacity_a, table->capacity_b, uses, &table->least[(s + 1) * cells],
                      scratch, &table->least[s * cells]);
      }
      pairs_.push_back(std::move(*table));
    }
  }
  // An exact pair table bounds at least what pooling its two classes does.
  std::erase_if(groups_, [&](const Group& group) {
    return group.members.size() == 2 &&
           std::any_of(pairs_.begin(), pairs_.end(), [&](const PairTable& pair) {
             return pair.others.empty() && pair.a == group.members[0] && pair.b == group.members[1];
           });
  });
  return true;
}

bool SuffixBounds::add_residue_table(const std::vector<std::vector<Candidate>>& stages,
                                     const std::vector<double>& price,
                                     std::chrono::steady_clock::time_point deadline) {
  const std::size_t options = option_count(stages);
  const std::size_t per_stage = ResidueTable::cells_per_stage(capacity_.size(), kResidueModulus);
  if ((stages.size() + 1) * per_stage > kMostResidueCells ||
      options * per_stage > kMostResidueWork) {
    return true;  // too many classes for it
  }
  residue_ = ResidueTable::build(stages, layout_, capacity_, price, kResidueModulus, deadline);
  return residue_.has_value();
}

double SuffixBounds::split_sum(std::size_t s, std::uint64_t key,
                               const std::vector<std::size_t>& classes) const {
  double sum = 0.0;
  for (const std::size_t c : classes) sum += split_[c].row(s)[capacity_[c] - layout_.field(key, c)];
  return sum;
}

double SuffixBounds::after(std::size_t s, std::uint64_t key, double enough) const {
  double bound = 0.0;
  double split = 0.0;  // every term is >= 0, so each partial sum is a bound too
  for (std::size_t c = 0; c < capacity_.size(); ++c) {
    const int left = capacity_[c] - layout_.field(key, c);
    if (left < 0) return kInfinity;
    bound = std::max(bound, single_[c].row(s)[left]);
    split += split_[c].row(s)[left];
  }
  bound = std::max(bound, split);
  if (bound > enough) return bound;
  for (const Group& group : groups_) {
    int left = 0;
    for (const std::size_t c : group.members) left += capacity_[c] - layout_.field(key, c);
    bound = std::max(bound, group.table.row(s)[left]);
    if (bound > enough) return bound;
  }
  if (residue_) {
    bound = std::max(bound, residue_->after(s, key));
    if (bound > enough) return bound;
  }
  for (const PairTable& pair : pairs_) {
    const double least =
        static_cast<double>(pair.row(s)[pair.cell(capacity_[pair.a] - layout_.field(key, pair.a),
                                                  capacity_[pair.b] - layout_.field(key, pair.b))]);
    bound = std::max(bound, least + split_sum(s, key, pair.others));
    if (bound > enough) return bound;
  }
  return bound;
}

}  // namespace gaptrain::allocator
