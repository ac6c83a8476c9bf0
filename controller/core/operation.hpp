// What an admin lets gaptraind do (`gaptrain pause`, `resume`, `drain`; docs/admin.md,
// "Pause and drain"). Paused: no admissions and no grows, leases kept, reclaims still served.
// Draining: the same, and every satellite is given back (the jobs keep their own nodes); it
// stays so until resumed.
#pragma once

#include <optional>
#include <string_view>

namespace gaptrain::core {

enum class Operation { running, paused, draining };

std::string_view to_string(Operation operation);
// "running", "paused" or "draining"; empty for any other text.
std::optional<Operation> parse_operation(std::string_view text);

}  // namespace gaptrain::core
