// A lower bound for the shortfall search (suffix_bounds.hpp) that keeps every class's usage only
// modulo a small number.
//
// At the shadow prices an unused node costs far more than the search's tolerance, so an
// allocation worth finding fills every class (almost) exactly, and what the jobs can fill
// together is a question of arithmetic: options that take 2, 4 or 8 nodes of a class cannot fill
// an odd remainder. Tracking each class's nodes left modulo k (the jobs' counts shift the
// residues; at the end a class has at least its residue of nodes unused, priced) sees that for
// all classes at once in k^classes states a stage, where the exact tables see one or two
// classes at a time. Dropping the capacities only relaxes the problem, so the bound stays a
// lower bound. Measured on 1,000 nodes x 1,000 jobs with hole ends, k = 4: instance 1's root
// bound rises from 38,948 to 63,823, instance 14's from 31,875 to 46,918 (docs/allocator.md).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "allocator/search/usage_key.hpp"

namespace gaptrain::allocator {

class ResidueTable {
 public:
  // The table of every class modulo `modulus`, filled backwards over the stages; nothing when
  // `deadline` passes first.
  static std::optional<ResidueTable> build(const std::vector<std::vector<Candidate>>& stages,
                                           const KeyLayout& layout,
                                           const std::vector<int>& capacity,
                                           const std::vector<double>& price, int modulus,
                                           std::chrono::steady_clock::time_point deadline);

  // Cells a stage: modulus ^ classes.
  static std::size_t cells_per_stage(std::size_t classes, int modulus);

  // A lower bound on what jobs s.. add once `key`'s usage is taken (the usage fits).
  double after(std::size_t s, std::uint64_t key) const {
    std::size_t residue = 0;
    for (std::size_t c = capacity_.size(); c-- > 0;) {
      const int left = capacity_[c] - layout_.field(key, c);
      residue = residue * modulus_ + static_cast<std::size_t>(left % static_cast<int>(modulus_));
    }
    return static_cast<double>(least_[s * cells_ + residue]);
  }

 private:
  ResidueTable(const KeyLayout& layout, const std::vector<int>& capacity, int modulus);

  KeyLayout layout_;
  std::vector<int> capacity_;
  std::size_t modulus_;
  std::size_t cells_;         // per stage: digit c of a residue index is class c's
  std::vector<float> least_;  // (stages + 1) x cells, floats rounded down as the pair tables
};

}  // namespace gaptrain::allocator
