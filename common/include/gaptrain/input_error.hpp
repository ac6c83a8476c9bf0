// Errors in user- or admin-supplied input. Each names the offending field (a JSON-pointer-like
// path such as "jobs[2].curve[1]") and says what is wrong, so one line is enough to fix it.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>

namespace gaptrain {

class InputError : public std::runtime_error {
 public:
  InputError(std::string field, const std::string& problem)
      : std::runtime_error(field.empty() ? problem : field + ": " + problem),
        field_(std::move(field)) {}

  // The field the error is about ("" for the document as a whole).
  const std::string& field() const noexcept { return field_; }

  // The same error re-anchored under a parent field: "curve[1]" inside "jobs[0]" becomes
  // "jobs[0].curve[1]".
  InputError under(const std::string& parent) const;

 private:
  std::string field_;
};

}  // namespace gaptrain
