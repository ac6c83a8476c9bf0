#include "gaptrain/utf8.hpp"

#include <cstdint>

namespace gaptrain {

std::size_t utf8_length(std::string_view text) {
  const auto byte = [&](std::size_t i) { return static_cast<std::uint8_t>(text[i]); };
  const std::uint8_t lead = byte(0);
  if (lead < 0x80) return 1;
  std::size_t length = 0;
  std::uint32_t min = 0;
  std::uint32_t code = 0;
  if ((lead & 0xE0U) == 0xC0U) {
    length = 2;
    min = 0x80;
    code = lead & 0x1FU;
  } else if ((lead & 0xF0U) == 0xE0U) {
    length = 3;
    min = 0x800;
    code = lead & 0x0FU;
  } else if ((lead & 0xF8U) == 0xF0U) {
    length = 4;
    min = 0x10000;
    code = lead & 0x07U;
  } else {
    return 0;  // a continuation byte, or 0xF8..0xFF
  }
  if (text.size() < length) return 0;
  for (std::size_t i = 1; i < length; ++i) {
    if ((byte(i) & 0xC0U) != 0x80U) return 0;
    code = (code << 6U) | (byte(i) & 0x3FU);
  }
  const bool surrogate = code >= 0xD800 && code <= 0xDFFF;
  if (code < min || surrogate || code > 0x10FFFF) return 0;
  return length;
}

std::optional<std::size_t> invalid_utf8_at(std::string_view text) {
  std::size_t pos = 0;
  while (pos < text.size()) {
    // ASCII runs are the common case: skip them a byte at a time without decoding.
    if (static_cast<std::uint8_t>(text[pos]) < 0x80) {
      ++pos;
      continue;
    }
    const std::size_t length = utf8_length(text.substr(pos));
    if (length == 0) return pos;
    pos += length;
  }
  return std::nullopt;
}

}  // namespace gaptrain
