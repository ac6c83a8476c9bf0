// gaptraind's log: one call writes one structured entry. Under systemd (JOURNAL_STREAM or
// INVOCATION_ID set) entries go to journald with their fields (MESSAGE=, PRIORITY=, JOB_ID=,
// NODE=, UID=, ...), so `journalctl -u gaptraind JOB_ID=42` finds a job's story; otherwise one
// line on stderr with the fields as KEY=value, for a daemon run by hand or by a test script.
// The pure model never logs: only the daemon's edges do.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

#include "core/notes.hpp"

namespace gaptrain::daemon::log {

using core::Note;
using core::NoteField;

enum class Level { debug, info, notice, warning, error };

// One structured field (the core's type: what it notes is logged as it is). Keys follow
// journald's rules: upper case, digits and '_'.
using Field = core::NoteField;

// Entries below `threshold` are dropped (default info).
void set_threshold(Level threshold);

// True when entries go to journald.
bool to_journal();

void write(Level level, std::string_view message, std::initializer_list<Field> fields = {});
// What the decision core noted (core/notes.hpp), as one entry.
void write(const core::Note& note);

inline void debug(std::string_view m, std::initializer_list<Field> f = {}) {
  write(Level::debug, m, f);
}
inline void info(std::string_view m, std::initializer_list<Field> f = {}) {
  write(Level::info, m, f);
}
inline void warning(std::string_view m, std::initializer_list<Field> f = {}) {
  write(Level::warning, m, f);
}
inline void error(std::string_view m, std::initializer_list<Field> f = {}) {
  write(Level::error, m, f);
}

}  // namespace gaptrain::daemon::log
