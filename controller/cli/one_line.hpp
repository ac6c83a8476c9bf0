// Error messages on stderr are promised as exactly one line each.
#pragma once

#include <string>
#include <string_view>

namespace gaptrain::cli {

// `text` with anything that could split it over lines (a newline in a node name, a tab in a
// file name) escaped.
std::string one_line(std::string_view text);

// Prints "gaptrain COMMAND: MESSAGE" on stderr, the message on one line.
void report(std::string_view command, std::string_view message);

}  // namespace gaptrain::cli
