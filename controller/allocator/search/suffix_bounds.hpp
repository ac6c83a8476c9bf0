// Lower bounds on the shortfall the jobs still to be decided must add, for the shortfall search
// (shortfall_search.hpp; docs/allocator.md, "Solving", step 4).
//
// Each bound relaxes the problem to something a table per stage answers exactly, and the
// search takes the largest:
// * per class: only that class's capacity binds, its unused nodes priced at its price;
// * per group of classes: the group's classes pooled into one (an option uses the sum of its
//   counts there), unused nodes priced at the group's cheapest price;
// * split: every option's shortfall split into per-class shares that add up to at most the
//   shortfall, and per class the least sum of shares plus that class's unused nodes at its
//   price; the bound is the sum over classes. It sees that the jobs together must pay to fill
//   every class, where the others see one class or one pool at a time;
// * per pair of scarce classes: both capacities bind at once (a table per stage over the nodes
//   left in each), unused nodes of both priced. It sees what no one-dimensional table can:
//   that the options filling one class exactly must also fit the other. Built only while the
//   tables stay small (docs/allocator.md): scarce classes of tens of nodes, not hundreds;
// * residues: every class's nodes left modulo 4 (residue_table.hpp): what the jobs cannot fill
//   together, all classes at once.
#pragma once

#include <chrono>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "allocator/search/residue_table.hpp"
#include "allocator/search/usage_key.hpp"

namespace gaptrain::allocator {

class SuffixBounds {
 public:
  // Stops early, leaving complete() false, once `deadline` passes (the tables cost
  // jobs x classes x capacity, a good part of a second at 10,000 nodes with hundreds of jobs).
  SuffixBounds(const std::vector<std::vector<Candidate>>& stages, const KeyLayout& layout,
               const std::vector<int>& capacity, const std::vector<double>& price,
               std::chrono::steady_clock::time_point deadline);

  bool complete() const { return complete_; }

  // Adds the pair tables of the pairs the budgets allow, of both kinds (whole shortfall, and
  // less the other scarce classes' shares: which is larger differs between states), and the
  // residue table where the constructor left it out (few jobs). They cost more than all the
  // other tables together, so the search adds them only once it finds the instance hard. False
  // when `deadline` passed first (the tables made by then are kept).
  bool add_pair_tables(const std::vector<std::vector<Candidate>>& stages,
                       const std::vector<double>& price,
                       std::chrono::steady_clock::time_point deadline);

  // A lower bound on what jobs s.. of the stages add once `key`'s usage is taken, unused nodes
  // included, or infinity when the usage exceeds a class. Once the bound is known to exceed
  // `enough` it returns early with a smaller bound that still exceeds `enough` (all a pruning
  // search needs, and half the work when most candidates are pruned).
  double after(std::size_t s, std::uint64_t key,
               double enough = std::numeric_limits<double>::infinity()) const;

 private:
  // Least shortfall per (stage, nodes left) for one class or pool: row s of `least` is filled
  // from row s + 1 given `cheapest`, the stage's least cost per node count.
  struct Table {
    int capacity = 0;
    std::vector<double> least;  // (stages + 1) x (capacity + 1)
    double* row(std::size_t s) { return &least[s * (static_cast<std::size_t>(capacity) + 1)]; }
    const double* row(std::size_t s) const {
      return &least[s * (static_cast<std::size_t>(capacity) + 1)];
    }
  };
  struct Group {
    std::vector<std::size_t> members;  // classes pooled
    Table table;
  };
  // Least cost per (stage, nodes left in class a, nodes left in class b). An option costs its
  // shortfall less its split shares in `others` (none: the whole shortfall), and the bound adds
  // those classes' split tables: the pair's table then carries only what the others' tables
  // cannot see. Floats rounded down: half the memory, still a lower bound, and far finer than
  // the search's tolerance.
  struct PairTable {
    std::size_t a = 0, b = 0;
    int capacity_a = 0, capacity_b = 0;
    std::vector<std::size_t> others;
    std::vector<float> least;  // (stages + 1) x (capacity_a + 1) x (capacity_b + 1)
    std::size_t width() const { return static_cast<std::size_t>(capacity_b) + 1; }
    std::size_t cells_per_stage() const {
      return (static_cast<std::size_t>(capacity_a) + 1) * width();
    }
    std::size_t cell(int left_a, int left_b) const {
      return static_cast<std::size_t>(left_a) * width() + static_cast<std::size_t>(left_b);
    }
    const float* row(std::size_t s) const { return &least[s * cells_per_stage()]; }
  };
  static Table empty_table(std::size_t stages, int capacity, double price);
  static void fill_row(Table& table, std::size_t s, const std::vector<double>& cheapest);
  bool add_residue_table(const std::vector<std::vector<Candidate>>& stages,
                         const std::vector<double>& price,
                         std::chrono::steady_clock::time_point deadline);
  // Split tables' bound over `classes` given the usage in `key` (nodes left per class).
  double split_sum(std::size_t s, std::uint64_t key, const std::vector<std::size_t>& classes) const;

  KeyLayout layout_;
  std::vector<int> capacity_;
  std::vector<Table> single_;  // per class
  std::vector<Table> split_;   // per class, over shares
  std::vector<Group> groups_;
  std::vector<PairTable> pairs_;
  std::optional<ResidueTable> residue_;
  bool complete_ = false;
};

}  // namespace gaptrain::allocator
