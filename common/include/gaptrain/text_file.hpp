// Reads a whole (small) file into memory: configuration files, which the parsers then take as
// text so that they stay free of I/O.
#pragma once

#include <string>

namespace gaptrain {

// The bytes of file `path`. Throws std::system_error (naming `path`) when it cannot be read.
std::string read_text_file(const std::string& path);

}  // namespace gaptrain
