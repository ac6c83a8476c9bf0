// What the decision core has to say about what it did: one entry per journal line the edges
// write (gaptraind to journald, the simulator to its log or nowhere). The core never logs
// itself, so it runs the same in the daemon, in the simulator and in unit tests, and a test can
// read what it said.
#pragma once

#include <concepts>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gaptrain::core {

enum class NoteLevel { debug, info, warning };

// One structured field. Keys are literals following journald's rules (upper case, digits, '_').
struct NoteField {
  NoteField(std::string_view k, std::string v) : key(k), value(std::move(v)) {}
  NoteField(std::string_view k, std::string_view v) : key(k), value(v) {}
  NoteField(std::string_view k, const char* v) : key(k), value(v) {}
  template <std::integral T>
  NoteField(std::string_view k, T v) : key(k), value(std::to_string(v)) {}

  std::string_view key;
  std::string value;
};

struct Note {
  NoteLevel level = NoteLevel::info;
  std::string message;
  std::vector<NoteField> fields;
};

using Notes = std::vector<Note>;

// A hole's predicted end (or another optional Unix time) as a note's field shows it: "unknown"
// when there is none.
inline std::string end_text(const std::optional<std::int64_t>& end) {
  return end ? std::to_string(*end) : std::string("unknown");
}

// Seconds as a note's field shows them: to a tenth ("GRACE_S=1.0", "IN_S=586.0").
inline std::string seconds_text(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", seconds);
  return text;
}

}  // namespace gaptrain::core
