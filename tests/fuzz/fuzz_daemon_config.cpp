// gaptraind's configuration parser (controller/core/config.cpp, etc/README.md):
// parse_config() on the whole input as the text of gaptraind.json, and parse_listen() on it as a
// "listen" value. Bad input must be a gaptrain::InputError; an accepted listen address must be a
// clean numeric host that to_string() writes back in a form parse_listen() reads the same.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/config.hpp"
#include "fuzz_check.hpp"
#include "gaptrain/input_error.hpp"

namespace core = gaptrain::core;
using gaptrain::fuzz::check;
using gaptrain::fuzz::must_succeed;

namespace {

void check_listen(const core::ListenAddress& address) {
  check(!address.host.empty(), "listen: empty host accepted");
  check(address.host.find('\0') == std::string::npos, "listen: host with a NUL byte accepted");
  check(address.port != 0, "listen: port 0 accepted");
  const std::string written = core::to_string(address);
  const core::ListenAddress again =
      must_succeed([&] { return core::parse_listen(written); }, "parse_listen(to_string()) failed");
  check(again == address, "listen: to_string() does not read back the same address");
}

bool finite_non_negative(double seconds) {
  return std::isfinite(seconds) && seconds >= 0.0;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = gaptrain::fuzz::as_text(data, size);

  try {
    const core::DaemonConfig config = core::parse_config(text);
    check_listen(config.listen);
    check(config.poll_interval_s > 0.0 && std::isfinite(config.poll_interval_s),
          "poll_interval_s not a positive number");
    check(config.watch_interval_s > 0.0 && std::isfinite(config.watch_interval_s),
          "watch_interval_s not a positive number");
    check(finite_non_negative(config.horizon_s) && finite_non_negative(config.lease_s) &&
              finite_non_negative(config.drain_grace_s) &&
              finite_non_negative(config.reclaim_grace_s),
          "a duration is negative or not finite");
    check(config.idle_reserve_nodes >= 0, "idle_reserve_nodes < 0");
    check(!config.elastic_partitions.first().empty(), "empty elastic_partition accepted");
  } catch (const gaptrain::InputError&) {
  }

  try {
    check_listen(core::parse_listen(text));
  } catch (const gaptrain::InputError&) {
  }
  return 0;
}
