#include "goodput_json.hpp"

#include <string>

namespace gaptrain::daemon {

void put_goodput_json(Json::Value& object, const std::optional<BatchRange>& batch,
                      std::optional<double> noise_scale, std::string_view noise_scale_source) {
  if (!batch) {
    object["batch"] = Json::Value(Json::nullValue);
    object["noise_scale"] = Json::Value(Json::nullValue);
    object["noise_scale_source"] = Json::Value(Json::nullValue);
    return;
  }
  Json::Value& range = object["batch"] = Json::Value(Json::objectValue);
  range["tuned"] = batch->tuned;
  range["max"] = batch->max;
  range["max_per_node"] = batch->max_per_node;
  object["noise_scale"] = noise_scale ? Json::Value(*noise_scale) : Json::Value(Json::nullValue);
  object["noise_scale_source"] = std::string(noise_scale_source);
}

}  // namespace gaptrain::daemon
