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

std::string open(double width, double height, std::string_view title) {
  const std::string w = number(width, 0);
  const std::string h = number(height, 0);
  return "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + w + "\" height=\"" + h +
         "\" viewBox=\"0 0 " + w + " " + h +
         "\" font-family=\"sans-serif\" font-size=\"12\">\n<title>" + xml_escape(title) +
         "</title>\n<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n";
}

namespace {

// " attributes", or nothing.
std::string more(std::string_view attributes) {
  return attributes.empty() ? std::string() : " " + std::string(attributes);
}

// "/>" or ">" the title and the element's end tag.
std::string end(std::string_view element, std::string_view title) {
  if (title.empty()) return "/>\n";
  return "><title>" + xml_escape(title) + "</title></" + std::string(element) + ">\n";
}

}  // namespace

std::string text(double x, double y, std::string_view content, std::string_view attributes) {
  return "<text x=\"" + number(x, 1) + "\" y=\"" + number(y, 1) + "\"" + more(attributes) + ">" +
         xml_escape(content) + "</text>\n";
}

std::string line(double x1, double y1, double x2, double y2, std::string_view attributes,
                 std::string_view title) {
  return "<line x1=\"" + number(x1, 1) + "\" y1=\"" + number(y1, 1) + "\" x2=\"" + number(x2, 1) +
         "\" y2=\"" + number(y2, 1) + "\"" + more(attributes) + end("line", title);
}

std::string rect(double x, double y, double width, double height, std::string_view attributes) {
  return "<rect x=\"" + number(x, 1) + "\" y=\"" + number(y, 1) + "\" width=\"" + number(width, 1) +
         "\" height=\"" + number(height, 1) + "\"" + more(attributes) + "/>\n";
}

std::string polyline(std::span<const std::pair<double, double>> points,
                     std::string_view attributes) {
  std::string out = "<polyline" + more(attributes) + " points=\"";
  for (const auto& [x, y] : points) out += number(x, 1) + "," + number(y, 1) + " ";
  return out + "\"/>\n";
}

}  // namespace gaptrain::sim::svg
