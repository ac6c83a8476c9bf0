#include "core/node_type.hpp"

#include <algorithm>

namespace gaptrain::core {

namespace {

// The items of a comma-separated list, parenthesized parts kept whole: a GRES's socket list
// "(S:0,2)" holds a comma of its own.
std::vector<std::string_view> list_items(std::string_view list) {
  std::vector<std::string_view> items;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= list.size(); ++i) {
    const char c = i < list.size() ? list[i] : ',';
    if (c == '(') ++depth;
    if (c == ')' && depth > 0) --depth;
    if (c == ',' && depth == 0) {
      if (i > start) items.push_back(list.substr(start, i - start));
      start = i + 1;
    }
  }
  return items;
}

// A GRES item's type: "gpu:a100:4(S:0-1)" -> "a100"; "gpu:4" and "gpu" have none.
std::string_view gres_type(std::string_view item) {
  item = item.substr(0, item.find('('));
  const std::size_t first = item.find(':');
  if (first == std::string_view::npos) return {};
  const std::string_view rest = item.substr(first + 1);
  const std::size_t second = rest.find(':');
  if (second == std::string_view::npos) return {};  // name:count
  return rest.substr(0, second);
}

}  // namespace

NodeTypeOf node_type(std::string_view features, std::string_view gres,
                     const std::vector<std::string>& names) {
  const std::vector<std::string_view> have = list_items(features);
  for (const std::string& name : names) {
    if (std::ranges::find(have, std::string_view(name)) != have.end()) {
      return {name, NodeTypeSource::feature};
    }
  }
  std::vector<std::string_view> typed;
  for (const std::string_view item : list_items(gres)) typed.push_back(gres_type(item));
  for (const std::string& name : names) {
    if (std::ranges::find(typed, std::string_view(name)) != typed.end()) {
      return {name, NodeTypeSource::gres};
    }
  }
  return {};
}

void assign_node_types(Snapshot& snapshot, const std::vector<std::string>& names) {
  if (names.empty()) return;
  for (Node& node : snapshot.nodes) {
    NodeTypeOf of = node_type(node.features, node.gres, names);
    node.type = std::move(of.type);
    node.type_source = of.source;
  }
}

}  // namespace gaptrain::core
