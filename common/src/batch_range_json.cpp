#include "gaptrain/batch_range_json.hpp"

namespace gaptrain {

Json::Value batch_range_to_json(const BatchRange& range) {
  Json::Value value(Json::objectValue);
  value["tuned"] = range.tuned;
  value["max"] = range.max;
  value["max_per_node"] = range.max_per_node;
  return value;
}

}  // namespace gaptrain
