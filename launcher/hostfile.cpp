#include "hostfile.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <fstream>
#include <system_error>

namespace gaptrain::launch {

std::string hostfile_text(const std::vector<std::string>& nodes) {
  std::string text;
  for (const std::string& node : nodes) text += node + '\n';
  return text;
}

void write_atomically(const std::string& path, const std::string& text) {
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (!out) {
      throw std::system_error(errno, std::generic_category(), "cannot write " + temporary);
    }
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    const int error = errno;
    std::remove(temporary.c_str());
    throw std::system_error(error, std::generic_category(), "cannot rename to " + path);
  }
}

std::string default_hostfile_path(const std::string& working_dir, const std::string& tmp_dir,
                                  const std::string& job_id) {
  const std::string name = "/gaptrain-hosts." + job_id;
  if (!working_dir.empty() && access(working_dir.c_str(), W_OK) == 0) return working_dir + name;
  return (tmp_dir.empty() ? std::string("/tmp") : tmp_dir) + name;
}

std::string beside(const std::string& path, const std::string& name) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? name : path.substr(0, slash + 1) + name;
}

}  // namespace gaptrain::launch
