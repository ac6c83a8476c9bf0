#include "log.hpp"

#include <sys/uio.h>
#include <systemd/sd-journal.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <span>
#include <vector>

namespace gaptrain::daemon::log {

namespace {

std::atomic<Level> g_threshold{Level::info};

// syslog priorities, as journald's PRIORITY= expects them.
int priority(Level level) {
  switch (level) {
    case Level::debug: return 7;
    case Level::info: return 6;
    case Level::notice: return 5;
    case Level::warning: return 4;
    case Level::error: return 3;
  }
  return 6;
}

std::string_view level_name(Level level) {
  switch (level) {
    case Level::debug: return "debug";
    case Level::info: return "info";
    case Level::notice: return "notice";
    case Level::warning: return "warning";
    case Level::error: return "error";
  }
  return "info";
}

bool detect_journal() {
  // systemd sets JOURNAL_STREAM when stdout/stderr are connected to the journal and
  // INVOCATION_ID for every unit it starts; a daemon run by hand has neither.
  return std::getenv("JOURNAL_STREAM") != nullptr || std::getenv("INVOCATION_ID") != nullptr;
}

// A value on the stderr line: one line, quoted when it would not read back as one token.
std::string stderr_value(std::string_view value) {
  bool quote = value.empty();
  std::string out;
  for (const char c : value) {
    if (c == '\n') {
      out += "\\n";
    } else if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
      quote = true;
    } else if (static_cast<unsigned char>(c) < 0x20U) {
      out += '?';
    } else {
      if (c == ' ' || c == '=') quote = true;
      out += c;
    }
  }
  return quote ? "\"" + out + "\"" : out;
}

void write_journal(Level level, std::string_view message, std::span<const Field> fields) {
  std::vector<std::string> entries;
  entries.reserve(fields.size() + 3);
  entries.push_back("MESSAGE=" + std::string(message));
  entries.push_back("PRIORITY=" + std::to_string(priority(level)));
  entries.emplace_back("SYSLOG_IDENTIFIER=gaptraind");
  for (const Field& field : fields) {
    entries.push_back(std::string(field.key) + "=" + field.value);
  }
  std::vector<iovec> iov;
  iov.reserve(entries.size());
  for (std::string& entry : entries) iov.push_back({entry.data(), entry.size()});
  if (sd_journal_sendv(iov.data(), static_cast<int>(iov.size())) < 0) {
    // journald gone (shutdown): the entry still reaches the unit's stderr, i.e. the journal's
    // stream or the console.
    std::cerr << "gaptraind: " << message << '\n';
  }
}

void write_stderr(Level level, std::string_view message, std::span<const Field> fields) {
  // Wall-clock seconds with milliseconds: benchmarks and tests measure latencies from these.
  const auto since_epoch = std::chrono::system_clock::now().time_since_epoch();
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(since_epoch).count();
  char time[32];
  std::snprintf(time, sizeof time, "%lld.%03lld", static_cast<long long>(ms / 1000),
                static_cast<long long>(ms % 1000));
  std::string line = "gaptraind: time=" + std::string(time);
  line += " level=" + std::string(level_name(level));
  line += " msg=" + stderr_value(message);
  for (const Field& field : fields) {
    line += ' ';
    line += field.key;
    line += '=';
    line += stderr_value(field.value);
  }
  line += '\n';
  std::cerr << line << std::flush;
}

}  // namespace

void set_threshold(Level threshold) {
  g_threshold.store(threshold);
}

bool to_journal() {
  static const bool journal = detect_journal();
  return journal;
}

namespace {

// One entry, to journald or stderr; what the two write() calls share.
void emit(Level level, std::string_view message, std::span<const Field> fields) {
  if (level < g_threshold.load()) return;
  if (to_journal()) {
    write_journal(level, message, fields);
  } else {
    write_stderr(level, message, fields);
  }
}

Level level_of(core::NoteLevel level) {
  switch (level) {
    case core::NoteLevel::debug: return Level::debug;
    case core::NoteLevel::info: return Level::info;
    case core::NoteLevel::warning: return Level::warning;
  }
  return Level::info;
}

}  // namespace

void write(Level level, std::string_view message, std::initializer_list<Field> fields) {
  emit(level, message, std::span<const Field>(fields.begin(), fields.size()));
}

void write(const core::Note& note) {
  emit(level_of(note.level), note.message, note.fields);
}

}  // namespace gaptrain::daemon::log
