#include "job_file.hpp"

#include <json/json.h>

#include "gaptrain/json_text.hpp"

namespace gaptrain::launch {

namespace {

Json::Value string_array(const std::vector<std::string>& items) {
  Json::Value array(Json::arrayValue);
  for (const std::string& item : items) array.append(item);
  return array;
}

}  // namespace

std::string job_file_text(const JobFileView& view) {
  Json::Value document(Json::objectValue);
  document["job_id"] = view.job_id;
  document["generation"] = Json::UInt64(view.generation);
  document["nodes"] = string_array(view.nodes);
  document["leaving"] = string_array(view.leaving);
  Json::Value& notice = document["notice"] = Json::Value(Json::objectValue);
  for (const auto& [node, at] : view.notice) notice[node] = at;
  document["min_nodes"] = view.min_nodes;
  document["max_nodes"] = view.max_nodes;
  if (view.batch) {
    Json::Value& batch = document["batch"] = Json::Value(Json::objectValue);
    batch["tuned"] = view.batch->tuned;
    batch["global"] = Json::Int64{view.batch->global};
    batch["per_node"] = view.batch->per_node;
    batch["accumulation"] = view.batch->accumulation;
    batch["lr_gain"] = view.batch->lr_gain;
  }
  return one_line_json(document) + "\n";
}

}  // namespace gaptrain::launch
