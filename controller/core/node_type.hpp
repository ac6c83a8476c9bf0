// A node's type from what Slurm says of it: a site names its types in gaptraind.json
// ("node_types": ["a100", "v100"]) and a node is of the first of them it has as an active
// feature (slurm.conf Feature=) or, failing that, as the type of one of its GRES
// (Gres=gpu:a100:4). Features first: they are what a site already marks node generations with,
// and what `--constraint` asks for.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/cluster.hpp"

namespace gaptrain::core {

struct NodeTypeOf {
  std::string type;  // "" when the node has none of the names
  NodeTypeSource source = NodeTypeSource::none;
};

// `features`: Slurm's comma-separated active features ("ib,a100"); `gres`: its GRES
// ("gpu:a100:4(S:0-1),nvme:1"). `names` in the site's order.
NodeTypeOf node_type(std::string_view features, std::string_view gres,
                     const std::vector<std::string>& names);

// Sets every node's type from its features and GRES. With no names configured the snapshot is
// left as it came (a replayed cluster sets types itself).
void assign_node_types(Snapshot& snapshot, const std::vector<std::string>& names);

}  // namespace gaptrain::core
