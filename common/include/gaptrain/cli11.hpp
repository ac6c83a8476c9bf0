// CLI11, included through here so its one warning workaround lives in one place.
#pragma once

// GCC 12 at -O2 reports a false -Wnull-dereference inside libstdc++'s std::string as inlined
// into CLI11 2.1's CLI::detail::split (any program calling App::parse does; the warning is
// attributed to a system header but not suppressed), which would break -DGAPTRAIN_WERROR=ON.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wnull-dereference"
#include <CLI/CLI.hpp>  // IWYU pragma: export
#pragma GCC diagnostic pop
