// The one way gaptrain reads a number out of text: the whole text, std::from_chars's grammar.
#pragma once

#include <charconv>
#include <cmath>
#include <optional>
#include <string_view>
#include <system_error>
#include <type_traits>

namespace gaptrain {

// `text`, whole, as a T (an integer type or double), or nothing. Locale-independent and
// allocation-free (std::from_chars): no blank, no leading '+', no trailing characters; an
// unsigned T takes no '-'; a value out of T's range is nothing. A double is also nothing when it
// is not finite ("inf", "nan"): no input of gaptrain means one. Bounds are the caller's.
template <typename T>
std::optional<T> parse_number(std::string_view text) noexcept {
  static_assert(std::is_integral_v<T> || std::is_same_v<T, double>);
  T value{};
  const char* const last = text.data() + text.size();
  const auto [end, error] = std::from_chars(text.data(), last, value);
  if (text.empty() || error != std::errc() || end != last) return std::nullopt;
  if constexpr (std::is_same_v<T, double>) {
    if (!std::isfinite(value)) return std::nullopt;
  }
  return value;
}

}  // namespace gaptrain
