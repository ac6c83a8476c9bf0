// A job option's node counts per class packed into one 64-bit word, so that the shortfall
// search (shortfall_search.hpp) adds usages with one integer addition and finds states by key.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

namespace gaptrain::allocator {

// A bit field per class. Each field has room for twice its capacity, so adding an option's
// (fitting) counts never carries into the next field before the capacity check sees it.
class KeyLayout {
 public:
  // Nothing when the fields do not fit in 64 bits.
  static std::optional<KeyLayout> fit(const std::vector<int>& capacity);

  std::uint64_t pack(const std::vector<int>& counts) const;
  int field(std::uint64_t key, std::size_t c) const {
    return static_cast<int>((key >> shift_[c]) & mask_[c]);
  }
  std::size_t classes() const { return shift_.size(); }

 private:
  std::vector<int> shift_;
  std::vector<std::uint64_t> mask_;
};

// The class with the most nodes (the first of equals): the search's order and its bounds treat
// every other class as scarce.
inline std::size_t largest_class(const std::vector<int>& capacity) {
  return static_cast<std::size_t>(std::max_element(capacity.begin(), capacity.end()) -
                                  capacity.begin());
}

// One job's option in the search's terms.
struct Candidate {
  std::uint64_t key;     // its counts, packed
  double shortfall;      // delta_j(o) >= 0
  std::uint32_t option;  // index in the job's input options
};

}  // namespace gaptrain::allocator
