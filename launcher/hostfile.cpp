#include "hostfile.hpp"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <string_view>
#include <system_error>

#include "gaptrain/errno_error.hpp"

namespace gaptrain::launch {

std::string hostfile_text(const std::vector<std::string>& nodes) {
  std::string text;
  for (const std::string& node : nodes) text += node + '\n';
  return text;
}

void write_atomically(const std::string& path, const std::string& text) {
  // A fresh name each time, created exclusively (mkostemp opens with O_CREAT | O_EXCL, which
  // never follows a symlink, mode 0600): nothing planted at a name known in advance is written
  // through, and a temporary file left by a crash is never reused. The rename replaces whatever
  // is at `path` (a link included) without following it.
  std::string temporary = path + ".tmp.XXXXXX";
  const int fd = ::mkostemp(temporary.data(), O_CLOEXEC);
  if (fd < 0) throw_errno(errno, "cannot create a temporary file for " + path);
  std::string_view left = text;
  while (!left.empty()) {
    const ssize_t written = ::write(fd, left.data(), left.size());
    if (written < 0 && errno == EINTR) continue;
    if (written < 0) {
      const int error = errno;
      ::close(fd);
      ::unlink(temporary.c_str());
      throw_errno(error, "cannot write " + temporary);
    }
    left.remove_prefix(static_cast<std::size_t>(written));
  }
  if (::close(fd) != 0) {
    const int error = errno;
    ::unlink(temporary.c_str());
    throw_errno(error, "cannot write " + temporary);
  }
  if (::rename(temporary.c_str(), path.c_str()) != 0) {
    const int error = errno;
    ::unlink(temporary.c_str());
    throw_errno(error, "cannot rename to " + path);
  }
}

}  // namespace gaptrain::launch
