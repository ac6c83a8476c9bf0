#include "simulator/svg_text.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>

namespace gaptrain::sim::svg {

std::string number(double value, int decimals) {
  std::array<char, 64> buffer{};
  const int written = std::snprintf(buffer.data(), buffer.size(), "%.*f", decimals, value);
  if (written <= 0) return "0";
  // Trim in the buffer and build the string once: GCC 12 at -O2 with the
  // sanitizers reports a false -Wrestrict on pop_back() then assignment.
  std::string_view text(
      buffer.data(), std::min<std::size_t>(static_cast<std::size_t>(written), buffer.size() - 1));
  if (text.find('.') != std::string_view::npos) {
    while (text.ends_with('0')) text.remove_suffix(1);
    if (text.ends_with('.')) text.remove_suffix(1);
  }
  if (text == "-0" || text.empty()) return "0";
  return std::string(text);
}

std::string xml_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      case '\t':
      case '\n':
      case '\r': out += c; break;
      default: out += (static_cast<unsigned char>(c) < 0x20) ? '?' : c;
    }
  }
  return out;
}

double tick_step(double span, int max_ticks, std::span<const double> preferred) {
  for (const double step : preferred) {
    if (span / step <= max_ticks) return step;
  }
  const double raw = span / max_ticks;
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  for (const double mantissa : {1.0, 2.0, 5.0}) {
    if (mantissa * power >= raw) return mantissa * power;
  }
  return 10.0 * power;
}

}  // namespace gaptrain::sim::svg
