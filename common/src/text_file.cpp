#include "gaptrain/text_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <utility>

namespace gaptrain {
namespace {

// Closes the descriptor however the read ends.
class Descriptor {
 public:
  explicit Descriptor(int fd) : fd_(fd) {}
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  ~Descriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

[[noreturn]] void throw_errno(const std::string& path) {
  const std::error_code code(errno, std::generic_category());
  throw FileRefused(code, path, code.message());
}

// What a file that is not a regular one is, for the message.
const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a named pipe (FIFO)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "a special file";
}

[[noreturn]] void throw_too_large(const std::string& path, std::size_t max_bytes) {
  throw FileRefused(std::make_error_code(std::errc::file_too_large), path,
                    "larger than " + size_text(max_bytes));
}

}  // namespace

FileRefused::FileRefused(std::error_code code, std::string path, std::string reason)
    : std::system_error(code),
      path_(std::move(path)),
      reason_(std::move(reason)),
      message_(path_ + ": " + reason_) {}

std::string size_text(std::size_t bytes) {
  constexpr std::size_t kMiB = std::size_t{1} << 20U;
  return bytes % kMiB == 0 && bytes > 0 ? std::to_string(bytes / kMiB) + " MiB"
                                        : std::to_string(bytes) + " bytes";
}

std::string read_regular_file(const std::string& path, std::size_t max_bytes) {
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer, forever.
  const Descriptor fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
  if (fd.get() < 0) throw_errno(path);
  struct stat status {};
  if (::fstat(fd.get(), &status) != 0) throw_errno(path);
  if (!S_ISREG(status.st_mode)) {
    throw FileRefused(std::make_error_code(std::errc::invalid_argument), path,
                      std::string("it is ") + kind_of(status.st_mode) + ", not a regular file");
  }
  const auto size = static_cast<std::size_t>(std::max<off_t>(status.st_size, 0));
  if (size > max_bytes) throw_too_large(path, max_bytes);

  std::string content;
  content.reserve(size);
  std::array<char, std::size_t{1} << 16U> buffer{};
  while (true) {
    // One byte past the limit is enough to know the file is too large.
    const std::size_t left = max_bytes - content.size();
    const std::size_t want = std::min(buffer.size(), left == 0 ? 1 : left);
    const ssize_t got = ::read(fd.get(), buffer.data(), want);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) throw_errno(path);
    if (got == 0) return content;
    if (static_cast<std::size_t>(got) > left) throw_too_large(path, max_bytes);
    content.append(buffer.data(), static_cast<std::size_t>(got));
  }
}

std::string read_text_file(const std::string& path) {
  return read_regular_file(path, kMaxTextFileBytes);
}

}  // namespace gaptrain
