#include "gaptrain/text_file.hpp"

#include <cerrno>
#include <fstream>
#include <sstream>
#include <system_error>

namespace gaptrain {

std::string read_text_file(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw std::system_error(errno, std::generic_category(), path);
  std::ostringstream text;
  text << file.rdbuf();
  if (file.bad()) throw std::system_error(errno, std::generic_category(), path);
  return text.str();
}

}  // namespace gaptrain
