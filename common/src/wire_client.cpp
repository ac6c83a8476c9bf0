#include "gaptrain/wire_client.hpp"

#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <utility>
#include <vector>

#include "gaptrain/parse_number.hpp"

namespace gaptrain::wire {

namespace {

using Clock = std::chrono::steady_clock;

// A status reply lists every hole and job; anything longer than this is not our daemon.
constexpr std::size_t kMaxReplyBytes = std::size_t{4} << 20U;

class Fd {
 public:
  explicit Fd(int fd) noexcept : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const noexcept { return fd_; }
  int release() noexcept { return std::exchange(fd_, -1); }

 private:
  int fd_;
};

int remaining_ms(Clock::time_point deadline) {
  const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now());
  return left.count() <= 0 ? 0 : static_cast<int>(std::min<long long>(left.count(), 1 << 30));
}

// Waits for `events` on `fd` until the deadline; false on timeout or poll failure.
bool wait_for(int fd, short events, Clock::time_point deadline) {
  for (;;) {
    pollfd p{fd, events, 0};
    const int n = ::poll(&p, 1, remaining_ms(deadline));
    if (n > 0) return true;
    if (n == 0) return false;
    if (errno != EINTR) return false;
  }
}

std::string errno_text(const char* what) {
  return std::string(what) + ": " + std::strerror(errno);
}

struct Address {
  sockaddr_storage storage{};
  socklen_t length = 0;
  int family = AF_UNSPEC;
};

std::vector<Address> to_addresses(const addrinfo* list) {
  std::vector<Address> out;
  for (const addrinfo* ai = list; ai != nullptr; ai = ai->ai_next) {
    if (ai->ai_addrlen > sizeof(sockaddr_storage)) continue;
    Address a;
    std::memcpy(&a.storage, ai->ai_addr, ai->ai_addrlen);
    a.length = ai->ai_addrlen;
    a.family = ai->ai_family;
    out.push_back(a);
  }
  return out;
}

// Numeric addresses resolve at once. Names go through getaddrinfo_a so a slow resolver cannot
// stretch the deadline; a lookup that outlives it is abandoned (its small request block is
// leaked on purpose, since the resolver thread may still write to it).
std::vector<Address> resolve(const Endpoint& endpoint, Clock::time_point deadline,
                             std::string& error) {
  const std::string port = std::to_string(endpoint.port);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV;
  addrinfo* list = nullptr;
  if (::getaddrinfo(endpoint.host.c_str(), port.c_str(), &hints, &list) == 0) {
    std::vector<Address> out = to_addresses(list);
    ::freeaddrinfo(list);
    return out;
  }

  struct Lookup {
    std::string host;
    std::string port;
    addrinfo hints{};
    gaicb request{};
  };
  auto* lookup = new Lookup{endpoint.host, port, {}, {}};
  lookup->hints.ai_family = AF_UNSPEC;
  lookup->hints.ai_socktype = SOCK_STREAM;
  lookup->hints.ai_flags = AI_NUMERICSERV;
  lookup->request.ar_name = lookup->host.c_str();
  lookup->request.ar_service = lookup->port.c_str();
  lookup->request.ar_request = &lookup->hints;
  gaicb* requests[] = {&lookup->request};
  if (::getaddrinfo_a(GAI_NOWAIT, requests, 1, nullptr) != 0) {
    delete lookup;
    error = "cannot start resolving " + endpoint.host;
    return {};
  }
  int status = EAI_INPROGRESS;
  while ((status = ::gai_error(&lookup->request)) == EAI_INPROGRESS) {
    const int ms = remaining_ms(deadline);
    if (ms == 0) break;
    const timespec wait{ms / 1000, static_cast<long>(ms % 1000) * 1'000'000L};
    const gaicb* const pending[] = {&lookup->request};
    ::gai_suspend(pending, 1, &wait);
  }
  if (status == EAI_INPROGRESS) {
    if (::gai_cancel(&lookup->request) == EAI_CANCELED) delete lookup;
    error = "timed out resolving " + endpoint.host;
    return {};
  }
  std::vector<Address> out;
  if (status == 0) {
    out = to_addresses(lookup->request.ar_result);
    ::freeaddrinfo(lookup->request.ar_result);
  } else {
    error = "cannot resolve " + endpoint.host + ": " + ::gai_strerror(status);
  }
  delete lookup;
  return out;
}

// A connected non-blocking socket, or -1 with `error` set.
int connect_any(const std::vector<Address>& addresses, Clock::time_point deadline,
                std::string& error) {
  for (const Address& a : addresses) {
    const int fd = ::socket(a.family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
      error = errno_text("socket");
      continue;
    }
    Fd guard(fd);
    if (::connect(fd, reinterpret_cast<const sockaddr*>(&a.storage), a.length) != 0) {
      if (errno != EINPROGRESS) {
        error = errno_text("connect");
        continue;
      }
      if (!wait_for(fd, POLLOUT, deadline)) {
        error = "timed out connecting";
        return -1;
      }
      int so_error = 0;
      socklen_t len = sizeof so_error;
      if (::getsockopt(fd, SOL_SOCKET, SO_ERROR, &so_error, &len) != 0 || so_error != 0) {
        error = std::string("connect: ") + std::strerror(so_error != 0 ? so_error : errno);
        continue;
      }
    }
    return guard.release();
  }
  if (error.empty()) error = "no address to connect to";
  return -1;
}

Reply exchange(const Endpoint& endpoint, std::string_view line, std::chrono::milliseconds timeout) {
  const Clock::time_point deadline = Clock::now() + timeout;
  std::string error;
  const std::vector<Address> addresses = resolve(endpoint, deadline, error);
  if (addresses.empty()) return {false, error.empty() ? "no address" : error};
  const Fd socket(connect_any(addresses, deadline, error));
  if (socket.get() < 0) return {false, error};

  std::string out(line);
  out += '\n';
  std::size_t sent = 0;
  while (sent < out.size()) {
    // MSG_NOSIGNAL: a daemon that hangs up must not kill slurmstepd with SIGPIPE.
    const ssize_t n = ::send(socket.get(), out.data() + sent, out.size() - sent, MSG_NOSIGNAL);
    if (n > 0) {
      sent += static_cast<std::size_t>(n);
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      if (!wait_for(socket.get(), POLLOUT, deadline)) return {false, "timed out sending"};
    } else {
      return {false, errno_text("send")};
    }
  }

  std::string reply;
  char buffer[4096];
  for (;;) {
    const std::size_t newline = reply.find('\n');
    if (newline != std::string::npos) return {true, reply.substr(0, newline)};
    if (reply.size() > kMaxReplyBytes) return {false, "reply line too long"};
    if (!wait_for(socket.get(), POLLIN, deadline)) return {false, "timed out waiting for reply"};
    const ssize_t n = ::recv(socket.get(), buffer, sizeof buffer, 0);
    if (n > 0) {
      reply.append(buffer, static_cast<std::size_t>(n));
    } else if (n == 0) {
      // A server that closes without a final newline still answered.
      if (reply.empty()) return {false, "connection closed without a reply"};
      return {true, reply};
    } else if (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK) {
      return {false, errno_text("recv")};
    }
  }
}

}  // namespace

std::optional<Endpoint> parse_endpoint(std::string_view host_port) {
  std::string_view host;
  std::string_view port;
  if (host_port.starts_with('[')) {
    const std::size_t close = host_port.find(']');
    if (close == std::string_view::npos || host_port.substr(close + 1, 1) != ":") {
      return std::nullopt;
    }
    host = host_port.substr(1, close - 1);
    port = host_port.substr(close + 2);
  } else {
    const std::size_t colon = host_port.rfind(':');
    if (colon == std::string_view::npos) return std::nullopt;
    host = host_port.substr(0, colon);
    port = host_port.substr(colon + 1);
    if (host.find(':') != std::string_view::npos) return std::nullopt;  // IPv6 needs brackets
  }
  if (host.empty() || port.empty()) return std::nullopt;
  for (const char c : host) {
    if (static_cast<unsigned char>(c) <= 0x20U || c == '[' || c == ']') return std::nullopt;
  }
  const std::optional<unsigned> value = parse_number<unsigned>(port);
  if (!value || *value == 0 || *value > 65535U) return std::nullopt;
  return Endpoint{std::string(host), static_cast<std::uint16_t>(*value)};
}

Reply request(const Endpoint& endpoint, std::string_view line,
              std::chrono::milliseconds timeout) noexcept {
  try {
    return exchange(endpoint, line, timeout);
  } catch (...) {
    // Only allocation can throw here; the caller must still see "not delivered".
    Reply failed;
    try {
      failed.text = "internal error";
    } catch (...) {
    }
    return failed;
  }
}

}  // namespace gaptrain::wire
