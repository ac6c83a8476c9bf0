#include "goodput_json.hpp"

#include <string>

#include "gaptrain/batch_range_json.hpp"

namespace gaptrain::daemon {

void put_goodput_json(Json::Value& object, const std::optional<BatchRange>& batch,
                      std::optional<double> noise_scale, std::string_view noise_scale_source) {
  if (!batch) {
    object["batch"] = Json::Value(Json::nullValue);
    object["noise_scale"] = Json::Value(Json::nullValue);
    object["noise_scale_source"] = Json::Value(Json::nullValue);
    return;
  }
  object["batch"] = batch_range_to_json(*batch);
  object["noise_scale"] = noise_scale ? Json::Value(*noise_scale) : Json::Value(Json::nullValue);
  object["noise_scale_source"] = std::string(noise_scale_source);
}

}  // namespace gaptrain::daemon
