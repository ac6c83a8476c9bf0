#include "progress.hpp"

#include <cmath>
#include <fstream>

#include "gaptrain/input_error.hpp"
#include "gaptrain/json_text.hpp"

namespace gaptrain::launch {

namespace {

// Enough for any sane progress line, and bounds the work per poll however large the file grows.
constexpr std::streamoff kTailBytes = 64 * 1024;

}  // namespace

std::optional<double> last_samples_done(std::string_view text) {
  const std::size_t end = text.rfind('\n');
  if (end == std::string_view::npos) return std::nullopt;
  text = text.substr(0, end);
  // The last non-blank line before the final '\n'.
  while (!text.empty()) {
    const std::size_t start = text.rfind('\n');
    const std::string_view line = start == std::string_view::npos ? text : text.substr(start + 1);
    if (line.find_first_not_of(" \t\r") != std::string_view::npos) {
      try {
        const Json::Value document = parse_strict_json(line);
        if (!document.isObject()) return std::nullopt;
        const Json::Value& done = document["samples_done"];
        if (!done.isNumeric()) return std::nullopt;
        const double value = done.asDouble();
        if (!std::isfinite(value) || value < 0.0) return std::nullopt;
        return value;
      } catch (const InputError&) {
        return std::nullopt;
      }
    }
    if (start == std::string_view::npos) break;
    text = text.substr(0, start);
  }
  return std::nullopt;
}

std::optional<double> read_samples_done(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return std::nullopt;
  const std::streamoff size = in.tellg();
  if (size <= 0) return std::nullopt;
  const std::streamoff from = size > kTailBytes ? size - kTailBytes : 0;
  in.seekg(from);
  std::string tail(static_cast<std::size_t>(size - from), '\0');
  in.read(tail.data(), static_cast<std::streamsize>(tail.size()));
  tail.resize(static_cast<std::size_t>(in.gcount()));
  return last_samples_done(tail);
}

}  // namespace gaptrain::launch
