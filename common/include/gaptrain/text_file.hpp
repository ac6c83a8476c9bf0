// Reads a whole (bounded) file into memory: configuration files and inputs named by users, which
// the parsers then take as text so that they stay free of I/O.
#pragma once

#include <cstddef>
#include <string>
#include <system_error>

namespace gaptrain {

// Why a file was not read. what() is "PATH: REASON"; reason() alone lets a caller phrase its
// own message. code() is errno's code for a failed open or read, std::errc::invalid_argument
// for something that is not a regular file and std::errc::file_too_large past the limit.
class FileRefused : public std::system_error {
 public:
  FileRefused(std::error_code code, std::string path, std::string reason);

  const char* what() const noexcept override { return message_.c_str(); }
  const std::string& path() const noexcept { return path_; }
  // "No such file or directory", "it is a named pipe (FIFO), not a regular file", "larger than
  // 1 MiB".
  const std::string& reason() const noexcept { return reason_; }
  bool too_large() const noexcept { return code() == std::errc::file_too_large; }

 private:
  std::string path_;
  std::string reason_;
  std::string message_;
};

// "512 MiB" or "1000 bytes": a limit as the messages say it.
std::string size_text(std::size_t bytes);

// The bytes of the regular file `path`, at most `max_bytes` of them. The file is opened without
// blocking and refused unless it is a regular file, so a named pipe, a device (/dev/zero) or a
// directory never stalls or floods the caller; reading stops as soon as the file proves longer
// than the limit (it may grow while read), so memory stays near `max_bytes`. Throws FileRefused.
std::string read_regular_file(const std::string& path, std::size_t max_bytes);

// The most a configuration file may hold: a few KB in practice.
inline constexpr std::size_t kMaxTextFileBytes = std::size_t{16} << 20U;

// read_regular_file(path, kMaxTextFileBytes).
std::string read_text_file(const std::string& path);

}  // namespace gaptrain
