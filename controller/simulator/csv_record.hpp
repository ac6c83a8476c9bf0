// The one CSV field reader of the simulator's input files (workload_io.hpp), and the one way
// their error messages quote what the input said. Pure.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "gaptrain/utf8.hpp"  // invalid_utf8_at, which the fields must pass

namespace gaptrain::sim {

// The most bytes of one input value an error message repeats: a 10 MB name must not make a
// 10 MB message.
inline constexpr std::size_t kQuotedInputBytes = 60;

// `value` in double quotes for an error message (so stray spaces or empty values are visible):
// at most kQuotedInputBytes bytes of it, cut at a character boundary and followed by "...";
// bytes that are not printable UTF-8 (control characters, invalid sequences) written as \xNN,
// so the message stays one readable line whatever the input held.
std::string quote_input(std::string_view value);

// Splits one line into its comma-separated fields as RFC 4180 says, with two liberties that
// hand-made files need: spaces and tabs around a field (outside its quotes) are not part of
// it, and a quoted field cannot span lines. A field in double quotes may hold commas and
// doubled quotes ("a,b" is a,b; "say ""hi""" is say "hi"). Every field must be valid UTF-8.
//
// Stores the first fields.size() fields in `fields` (views into `line`, or into `unescaped`,
// which needs as many strings, for a quoted field with doubled quotes) and returns how many
// fields the line has, which may be more (counted, not stored): callers report it. Throws
// gaptrain::InputError (field "") naming the column (from `column_names`, else its 1-based
// number) when a quote is misplaced or unterminated or a field is not UTF-8.
std::size_t split_csv_record(std::string_view line, std::span<std::string_view> fields,
                             std::span<std::string> unescaped,
                             std::span<const std::string_view> column_names = {});

}  // namespace gaptrain::sim
