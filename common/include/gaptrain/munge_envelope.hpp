// Munge credentials around protocol messages: the plugin seals, the daemon opens and learns the
// sender's uid and gid as authenticated by munged. Wraps libmunge.
#pragma once

#include <sys/types.h>

#include <stdexcept>
#include <string>
#include <string_view>

namespace gaptrain::munge {

class MungeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Opened {
  std::string payload;
  uid_t uid = 0;
  gid_t gid = 0;
};

// What every credential munged makes starts with: a line without it needs no munged to refuse.
inline constexpr std::string_view kMungeCredentialPrefix = "MUNGE:";

// A credential (text starting kMungeCredentialPrefix) carrying `payload`. `socket_path` empty:
// munged's default socket. Throws MungeError with munge's message.
std::string seal(std::string_view payload, const std::string& socket_path);

// The payload and sender of `credential`. Throws MungeError when it is invalid, expired,
// replayed or not decodable by this munged.
Opened open(std::string_view credential, const std::string& socket_path);

}  // namespace gaptrain::munge
