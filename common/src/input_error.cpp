#include "gaptrain/input_error.hpp"

namespace gaptrain {

InputError InputError::under(const std::string& parent) const {
  const std::string what_text = what();
  const std::string problem =
      field_.empty() ? what_text : what_text.substr(field_.size() + 2);  // drop "field: "
  if (field_.empty()) return InputError(parent, problem);
  const bool is_index = field_.front() == '[';
  return InputError(parent + (is_index ? "" : ".") + field_, problem);
}

}  // namespace gaptrain
