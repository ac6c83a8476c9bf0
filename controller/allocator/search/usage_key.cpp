#include "allocator/search/usage_key.hpp"

#include <bit>

namespace gaptrain::allocator {

std::optional<KeyLayout> KeyLayout::fit(const std::vector<int>& capacity) {
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

std::uint64_t KeyLayout::pack(const std::vector<int>& counts) const {
  std::uint64_t key = 0;
  for (std::size_t c = 0; c < counts.size(); ++c) {
    key |= static_cast<std::uint64_t>(counts[c]) << shift_[c];
  }
  return key;
}

}  // namespace gaptrain::allocator
