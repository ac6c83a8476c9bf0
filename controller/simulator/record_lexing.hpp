// What every reader of workload_io.hpp shares: where a record came from for its messages, a
// line reader, the field splitters and number parsers (locale-independent, allocation-free),
// and the fixed header lines of the CSV formats. Internal to the readers (workload_io.cpp,
// swf_reader.cpp).
#pragma once

#include <array>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "gaptrain/bounds.hpp"
#include "gaptrain/input_error.hpp"
#include "gaptrain/parse_number.hpp"
#include "simulator/csv_record.hpp"

namespace gaptrain::sim::lexing {

// Where a record came from, so every message names "NAME:LINE".
struct Where {
  const std::string& name;
  std::size_t line;

  [[noreturn]] void fail(const std::string& problem) const {
    throw InputError(name + ":" + std::to_string(line), problem);
  }
};

// Every value a message repeats goes through quote_input (csv_record.hpp): bounded, one line.
inline std::string quoted(std::string_view value) {
  return quote_input(value);
}

// The bound on durations (bounds.hpp), as messages say it.
inline const std::string kTenYears = std::to_string(static_cast<long long>(bounds::kMaxSeconds));

// Walks the text line by line without copying; strips a trailing '\r' (files written on
// Windows) and counts lines from 1 for messages.
class LineReader {
 public:
  explicit LineReader(std::string_view text) : text_(text) {}

  bool next(std::string_view& line) {
    if (pos_ >= text_.size()) return false;
    std::size_t end = text_.find('\n', pos_);
    if (end == std::string_view::npos) end = text_.size();
    line = text_.substr(pos_, end - pos_);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    pos_ = end + 1;
    ++number_;
    return true;
  }

  std::size_t number() const { return number_; }

 private:
  std::string_view text_;
  std::size_t pos_ = 0;
  std::size_t number_ = 0;
};

inline bool is_blank(std::string_view line) {
  return line.find_first_not_of(" \t") == std::string_view::npos;
}

// The fields of one CSV record (split_csv_record), with where it came from in the message of a
// malformed one.
template <std::size_t N>
std::size_t csv_fields(std::string_view line, const Where& where,
                       const std::array<std::string_view, N>& column_names,
                       std::array<std::string_view, N>& fields,
                       std::array<std::string, N>& unescaped) {
  try {
    return split_csv_record(line, fields, unescaped, column_names);
  } catch (const InputError& e) {
    where.fail(e.what());
  }
}

// For whitespace-separated fields (SWF) (runs of spaces and tabs are one separator).
inline std::size_t split_whitespace(std::string_view line, std::span<std::string_view> fields) {
  std::size_t count = 0;
  std::size_t pos = line.find_first_not_of(" \t");
  while (pos != std::string_view::npos) {
    const std::size_t end = line.find_first_of(" \t", pos);
    const std::string_view field =
        line.substr(pos, end == std::string_view::npos ? end : end - pos);
    if (count < fields.size()) fields[count] = field;
    ++count;
    pos = line.find_first_not_of(" \t", end);
  }
  return count;
}

// The whole token as a finite number, or nothing (parse_number: it does not allocate, which
// matters for multi-million-row node-event logs).
inline std::optional<double> to_number(std::string_view token) {
  return parse_number<double>(token);
}

// A number as a message shows it: the shortest text that reads back as the same value.
inline std::string number_text(double value) {
  std::array<char, 32> buffer{};
  const auto [end, error] = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  return error == std::errc() ? std::string(buffer.data(), end) : std::to_string(value);
}

template <typename Integer>
std::optional<Integer> to_integer(std::string_view token) {
  return parse_number<Integer>(token);
}

// Whether `line` is the header naming `columns` (read as any record, so spaces and quotes
// around the names are fine).
template <std::size_t N>
bool is_header(std::string_view line, const Where& where,
               const std::array<std::string_view, N>& columns) {
  std::array<std::string_view, N> fields;
  std::array<std::string, N> unescaped;
  return csv_fields(line, where, columns, fields, unescaped) == N && fields == columns;
}

// The header line in quotes, whole: it is ours, not the input's.
template <std::size_t N>
std::string header_text(const std::array<std::string_view, N>& columns) {
  std::string text;
  for (const std::string_view column : columns)
    text += (text.empty() ? "" : ",") + std::string(column);
  return "\"" + text + "\"";
}

// The CSV files have a fixed first line so that a file given for the wrong option (curves for
// jobs, say) is caught with a clear message instead of a confusing error on some later row.
template <std::size_t N>
void expect_header(LineReader& lines, const std::array<std::string_view, N>& columns,
                   const std::string& name) {
  std::string_view line;
  if (!lines.next(line)) {
    throw InputError(name, "file is empty; expected the header line " + header_text(columns));
  }
  const Where where{name, lines.number()};
  if (!is_header(line, where, columns)) {
    where.fail("expected the header line " + header_text(columns) + ", got " + quoted(line));
  }
}

}  // namespace gaptrain::sim::lexing
