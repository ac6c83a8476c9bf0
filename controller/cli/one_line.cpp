#include "one_line.hpp"

#include <iostream>

namespace gaptrain::cli {

std::string one_line(std::string_view text) {
  std::string line;
  line.reserve(text.size());
  for (const char c : text) {
    if (c == '\n') {
      line += "\\n";
    } else if (c == '\r') {
      line += "\\r";
    } else if (c == '\t') {
      line += "\\t";
    } else if (static_cast<unsigned char>(c) < 0x20U || c == '\x7f') {
      line += '?';
    } else {
      line += c;
    }
  }
  return line;
}

void report(std::string_view command, std::string_view message) {
  std::cerr << "gaptrain " << command << ": " << one_line(message) << '\n';
}

}  // namespace gaptrain::cli
