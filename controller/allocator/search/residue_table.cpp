#include "allocator/search/residue_table.hpp"

#include <algorithm>
#include <limits>
#include <tuple>

#include "allocator/search/float_bound.hpp"

namespace gaptrain::allocator {

namespace {

// One stage's least shortfall per residue its counts shift by: options often share one.
struct ResidueUse {
  std::size_t shift;  // the counts modulo the modulus, as a residue index
  double shortfall;
};

}  // namespace

ResidueTable::ResidueTable(const KeyLayout& layout, const std::vector<int>& capacity, int modulus)
    : layout_(layout),
      capacity_(capacity),
      modulus_(static_cast<std::size_t>(modulus)),
      cells_(cells_per_stage(capacity.size(), modulus)) {}

std::size_t ResidueTable::cells_per_stage(std::size_t classes, int modulus) {
  std::size_t cells = 1;
  for (std::size_t c = 0; c < classes; ++c) cells *= static_cast<std::size_t>(modulus);
  return cells;
}

std::optional<ResidueTable> ResidueTable::build(const std::vector<std::vector<Candidate>>& stages,
                                                const KeyLayout& layout,
                                                const std::vector<int>& capacity,
                                                const std::vector<double>& price, int modulus,
                                                std::chrono::steady_clock::time_point deadline) {
  ResidueTable table(layout, capacity, modulus);
  const std::size_t n = stages.size();
  const std::size_t classes = capacity.size();
  const std::size_t k = table.modulus_;
  const std::size_t cells = table.cells_;
  table.least_.assign((n + 1) * cells, 0.0F);

  // After the last job each class has at least its residue of nodes unused, at its price
  // (summed in class order, as the search sums a complete allocation's unused nodes, so that
  // this never exceeds that sum by a rounding).
  float* last = &table.least_[n * cells];
  for (std::size_t r = 0; r < cells; ++r) {
    double unused = 0.0;
    std::size_t rest = r;
    for (std::size_t c = 0; c < classes; ++c, rest /= k) {
      unused += price[c] * static_cast<double>(rest % k);
    }
    last[r] = float_at_most(unused);
  }

  std::vector<ResidueUse> uses;
  std::vector<std::size_t> from;  // per residue: the one taking a use's counts leads to
  std::vector<double> row(cells);
  for (std::size_t s = n; s-- > 0;) {
    if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
    uses.clear();
    for (const Candidate& option : stages[s]) {
      std::size_t shift = 0;
      for (std::size_t c = classes; c-- > 0;) {
        shift = shift * k + static_cast<std::size_t>(layout.field(option.key, c)) % k;
      }
      uses.push_back({shift, option.shortfall});
    }
    std::sort(uses.begin(), uses.end(), [](const ResidueUse& x, const ResidueUse& y) {
      return std::tie(x.shift, x.shortfall) < std::tie(y.shift, y.shortfall);
    });
    uses.erase(
        std::unique(uses.begin(), uses.end(),
                    [](const ResidueUse& x, const ResidueUse& y) { return x.shift == y.shift; }),
        uses.end());
    std::fill(row.begin(), row.end(), kInfinity);
    const float* next = &table.least_[(s + 1) * cells];
    for (const ResidueUse& use : uses) {
      // Residue r minus the use's counts, digit-wise modulo k: built one digit (class) at a
      // time, lowest first.
      from.assign(1, 0);
      std::size_t shift = use.shift;
      for (std::size_t power = 1; from.size() < cells; power *= k, shift /= k) {
        const std::size_t below = from.size();
        from.resize(below * k);
        for (std::size_t d = k; d-- > 0;) {
          const std::size_t term = (d + k - shift % k) % k * power;
          for (std::size_t x = 0; x < below; ++x) from[d * below + x] = term + from[x];
        }
      }
      for (std::size_t r = 0; r < cells; ++r) {
        row[r] = std::min(row[r], use.shortfall + static_cast<double>(next[from[r]]));
      }
    }
    float* out = &table.least_[s * cells];
    for (std::size_t r = 0; r < cells; ++r) out[r] = float_at_most(row[r]);
  }
  return table;
}

}  // namespace gaptrain::allocator
