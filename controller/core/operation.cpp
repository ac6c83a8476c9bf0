#include "core/operation.hpp"

namespace gaptrain::core {

std::string_view to_string(Operation operation) {
  switch (operation) {
    case Operation::running: return "running";
    case Operation::paused: return "paused";
    case Operation::draining: return "draining";
  }
  return "running";
}

std::optional<Operation> parse_operation(std::string_view text) {
  for (const Operation operation : {Operation::running, Operation::paused, Operation::draining})
    if (to_string(operation) == text) return operation;
  return std::nullopt;
}

}  // namespace gaptrain::core
