#include "sender_process.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

namespace gaptrain::bench {

namespace {

// Both ends of the pipes speak the same fixed-width little protocol: a burst is its size, its
// kind and each event's job id and node name; the answer is a SendStats.
void write_all(int fd, const void* data, std::size_t size) {
  const auto* bytes = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = ::write(fd, bytes, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw std::runtime_error(std::string("sender pipe: ") + std::strerror(errno));
    bytes += n;
    size -= static_cast<std::size_t>(n);
  }
}

// False at the end of input before the first byte.
bool read_all(int fd, void* data, std::size_t size) {
  auto* bytes = static_cast<char*>(data);
  std::size_t done = 0;
  while (done < size) {
    const ssize_t n = ::read(fd, bytes + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n == 0 && done == 0) return false;
    if (n <= 0) throw std::runtime_error("sender pipe: cut short");
    done += static_cast<std::size_t>(n);
  }
  return true;
}

template <typename T>
void put(int fd, T value) {
  write_all(fd, &value, sizeof value);
}

template <typename T>
T get(int fd) {
  T value{};
  if (!read_all(fd, &value, sizeof value)) throw std::runtime_error("sender pipe: closed");
  return value;
}

void put_string(int fd, const std::string& text) {
  put<std::uint64_t>(fd, text.size());
  write_all(fd, text.data(), text.size());
}

std::string get_string(int fd) {
  std::string text(get<std::uint64_t>(fd), '\0');
  if (!text.empty() && !read_all(fd, text.data(), text.size())) {
    throw std::runtime_error("sender pipe: closed");
  }
  return text;
}

// The sender process: bursts in, their measurements out, until the end of input.
[[noreturn]] void serve(int in, int out, int senders, const plugin::PluginConfig& config) {
  int status = 0;
  try {
    std::uint64_t count = 0;
    while (read_all(in, &count, sizeof count)) {
      const bool freed = get<std::uint8_t>(in) != 0;
      std::vector<NodeEvent> events(count);
      for (NodeEvent& event : events) {
        event.job_id = get<std::uint32_t>(in);
        event.node = get_string(in);
      }
      const SendStats stats = send_node_events(events, freed, senders, config);
      for (const std::size_t n : {stats.sent, stats.accepted, stats.rejected, stats.undelivered})
        put<std::uint64_t>(out, n);
      put_string(out, stats.first_failure);
      put<double>(out, stats.seconds);
      put<std::uint64_t>(out, stats.latency_ms.size());
      write_all(out, stats.latency_ms.data(), stats.latency_ms.size() * sizeof(double));
    }
  } catch (const std::exception&) {
    status = 1;
  }
  ::_exit(status);
}

}  // namespace

SenderProcess::SenderProcess(int senders, const plugin::PluginConfig& config) {
  int down[2];
  int up[2];
  if (::pipe2(down, O_CLOEXEC) != 0 || ::pipe2(up, O_CLOEXEC) != 0) {
    throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  }
  pid_ = ::fork();
  if (pid_ < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid_ == 0) {
    ::close(down[1]);
    ::close(up[0]);
    serve(down[0], up[1], senders, config);
  }
  ::close(down[0]);
  ::close(up[1]);
  to_child_ = down[1];
  from_child_ = up[0];
}

SenderProcess::~SenderProcess() {
  ::close(to_child_);
  ::close(from_child_);
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
}

SendStats SenderProcess::send(const std::vector<NodeEvent>& events, bool freed) {
  put<std::uint64_t>(to_child_, events.size());
  put<std::uint8_t>(to_child_, freed ? 1 : 0);
  for (const NodeEvent& event : events) {
    put<std::uint32_t>(to_child_, event.job_id);
    put_string(to_child_, event.node);
  }
  SendStats stats;
  stats.sent = get<std::uint64_t>(from_child_);
  stats.accepted = get<std::uint64_t>(from_child_);
  stats.rejected = get<std::uint64_t>(from_child_);
  stats.undelivered = get<std::uint64_t>(from_child_);
  stats.first_failure = get_string(from_child_);
  stats.seconds = get<double>(from_child_);
  stats.latency_ms.resize(get<std::uint64_t>(from_child_));
  if (!stats.latency_ms.empty() &&
      !read_all(from_child_, stats.latency_ms.data(), stats.latency_ms.size() * sizeof(double))) {
    throw std::runtime_error("sender pipe: closed");
  }
  return stats;
}

}  // namespace gaptrain::bench
