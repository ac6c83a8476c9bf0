#include "core/node_needs.hpp"

#include <algorithm>
#include <cctype>

#include "core/node_list.hpp"

namespace gaptrain::core {

namespace {

// sbatch --constraint, evaluated for one node:
//   or    := and ('|' and)*
//   and   := unary (('&' | ',') unary)*
//   unary := '!' unary | ('(' or ')' | '[' or ']' | FEATURE) ['*' COUNT]
// A count asks for that many nodes with the feature, a matching OR ([a|b]) for one of them on
// every node: per node, both come down to "has the feature". Throws nothing; `ok` turns false
// on anything else.
class ConstraintReader {
 public:
  ConstraintReader(std::string_view text, const std::set<std::string_view>& features)
      : text_(text), features_(features) {}

  std::optional<bool> read() {
    const bool value = read_or();
    if (!ok_ || at_ != text_.size()) return std::nullopt;
    return value;
  }

 private:
  bool read_or() {
    bool value = read_and();
    while (ok_ && accept('|')) value = read_and() || value;
    return value;
  }
  bool read_and() {
    bool value = read_unary();
    while (ok_ && (accept('&') || accept(','))) value = read_unary() && value;
    return value;
  }
  bool read_unary() {
    // Any user writes a constraint: one nested beyond reason ("((((...", "!!!!...") is not read,
    // rather than recursed into until gaptraind's stack runs out.
    if (++depth_ > kMaxDepth) ok_ = false;
    if (!ok_) return false;
    bool value = false;
    if (accept('!')) {
      value = !read_unary();
    } else if (accept('(')) {
      value = read_or();
      expect(')');
    } else if (accept('[')) {
      value = read_or();
      expect(']');
    } else {
      value = read_feature();
    }
    if (accept('*')) {
      const std::size_t start = at_;
      while (at_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[at_])) != 0) ++at_;
      if (at_ == start) ok_ = false;
    }
    --depth_;
    return value;
  }
  bool read_feature() {
    const std::size_t start = at_;
    while (at_ < text_.size() &&
           std::string_view("&|,()[]!* ").find(text_[at_]) == std::string_view::npos) {
      ++at_;
    }
    if (at_ == start) {
      ok_ = false;
      return false;
    }
    return features_.contains(text_.substr(start, at_ - start));
  }
  bool accept(char c) {
    if (at_ < text_.size() && text_[at_] == c) {
      ++at_;
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!accept(c)) ok_ = false;
  }

  std::string_view text_;
  const std::set<std::string_view>& features_;
  static constexpr int kMaxDepth = 64;
  std::size_t at_ = 0;
  int depth_ = 0;
  bool ok_ = true;
};

std::string joined(const std::vector<std::string>& items) {
  std::string text;
  for (const std::string& item : items) text += item + ",";
  return text;
}

// Whether Slurm's comma-separated `list` ("resv1,resv2": a job may ask for several
// reservations, and runs in whichever it can) has `name`.
bool names(std::string_view list, std::string_view name) {
  while (!list.empty()) {
    const std::size_t comma = list.find(',');
    if (list.substr(0, comma) == name) return true;
    list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
  }
  return false;
}

}  // namespace

bool NodeNeed::requires_node(const std::string& node) const {
  return contains(required, node);
}

std::optional<bool> meets_constraint(std::string_view constraint, std::string_view features) {
  std::set<std::string_view> have;
  while (!features.empty()) {
    const std::size_t comma = features.find(',');
    if (comma != 0) have.insert(features.substr(0, comma));
    features = comma == std::string_view::npos ? std::string_view() : features.substr(comma + 1);
  }
  return ConstraintReader(constraint, have).read();
}

NodeNeed NodeNeeds::of(const Job& job) {
  NodeNeed need;
  // What narrows where it may start, as one key: the jobs that ask the same share the answer.
  const std::string ask = job.partition + '\n' + job.features + '\n' + job.reservation + '\n' +
                          joined(job.excluded_nodes);
  auto known = eligible_by_ask_.find(ask);
  if (known == eligible_by_ask_.end()) {
    std::optional<std::set<std::string>> eligible = partition_nodes(snapshot_, job.partition);
    const bool narrowed =
        !job.features.empty() || !job.excluded_nodes.empty() || !job.reservation.empty() ||
        std::ranges::any_of(snapshot_.reservations, [&](const Reservation& r) {
          return r.start_time <= snapshot_.taken_at && snapshot_.taken_at < r.end_time;
        });
    if (narrowed) {
      std::set<std::string> in_reservation;  // of its reservation; or of any active one
      for (const Reservation& r : snapshot_.reservations) {
        const bool active = r.start_time <= snapshot_.taken_at && snapshot_.taken_at < r.end_time;
        if (job.reservation.empty() ? active : names(job.reservation, r.name)) {
          in_reservation.insert(r.nodes.begin(), r.nodes.end());
        }
      }
      // Nodes share a few feature sets: the constraint is read once for each.
      std::map<std::string, std::optional<bool>> meets_by_features;
      std::set<std::string> narrow;
      for (const Node& node : snapshot_.nodes) {
        if (eligible && !eligible->contains(node.name)) continue;
        if (contains(job.excluded_nodes, node.name)) continue;
        // A job in a reservation starts on its nodes only; any other job on none of an active
        // reservation's.
        if (in_reservation.contains(node.name) == job.reservation.empty()) continue;
        // A constraint that does not read rules no node out: Slurm accepted the job.
        if (!job.features.empty()) {
          auto meets = meets_by_features.find(node.features);
          if (meets == meets_by_features.end()) {
            meets = meets_by_features
                        .emplace(node.features, meets_constraint(job.features, node.features))
                        .first;
          }
          if (meets->second == false) continue;
        }
        narrow.insert(node.name);
      }
      eligible = std::move(narrow);
    }
    known = eligible_by_ask_.emplace(ask, std::move(eligible)).first;
  }
  need.eligible = known->second;
  for (const std::string& node : job.required_nodes) {
    if (!contains(need.required, node)) need.required.push_back(node);
  }
  const std::size_t minimum =
      job.min_nodes > 0 ? job.min_nodes : std::max<std::size_t>(1, job.sched_nodes.size());
  need.count = std::max(minimum, need.required.size());
  return need;
}

}  // namespace gaptrain::core
