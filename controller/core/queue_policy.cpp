#include "core/queue_policy.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <optional>
#include <set>
#include <string_view>
#include <system_error>
#include <tuple>

#include "core/job_mark.hpp"
#include "core/parking.hpp"

namespace gaptrain::core {

namespace {

// A job's user as the caps count it: the uid. Not the name: Slurm resolves it for some jobs of
// a user and not others (a held job's came back empty, the same job's once released "root"),
// and the cap then counted one user as two.
std::string user_of(const Job& job) {
  return "uid " + std::to_string(job.user_id);
}

// The user as a message names them.
std::string user_name(const Job& job) {
  return job.user.empty() ? user_of(job) : job.user;
}

bool capped(int cap, std::size_t value) {
  return cap > 0 && value >= static_cast<std::size_t>(cap);
}

}  // namespace

double QueuePolicy::weight_of(const std::string& account) const {
  for (const auto& [name, weight] : account_weights)
    if (name == account) return weight;
  return 1.0;
}

namespace {

// One entry of Slurm's dependency list, "afterok:12(unfulfilled)" or "afterany:12+5(failed)".
bool entry_met(std::string_view entry, const JobIndex& jobs) {
  if (entry.ends_with("(fulfilled)")) return true;
  if (!entry.ends_with("(unfulfilled)")) return false;  // failed, or a form not known
  const std::size_t colon = entry.find(':');
  if (colon == std::string_view::npos) return false;
  const std::string_view kind = entry.substr(0, colon);
  std::uint32_t id = 0;
  const std::string_view rest = entry.substr(colon + 1);
  const auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), id);
  if (ec != std::errc()) return false;
  const Job* other = jobs.find(id);
  if (other == nullptr) return true;
  const bool ended = other->state == JobState::finished;
  if (kind == "after") return other->state != JobState::pending;
  if (kind == "afterany") return ended;
  if (kind == "afterok") return ended && other->completed_ok;
  if (kind == "afternotok") return ended && !other->completed_ok;
  return false;
}

}  // namespace

bool dependency_unmet(const Job& job, const JobIndex& jobs) {
  if (job.dependency.empty()) return false;
  const bool any = job.dependency.find('?') != std::string::npos;
  std::string_view rest = job.dependency;
  bool all_met = true;
  bool one_met = false;
  while (!rest.empty()) {
    const std::size_t cut = rest.find_first_of(",?");
    const bool met = entry_met(rest.substr(0, cut), jobs);
    all_met = all_met && met;
    one_met = one_met || met;
    rest = cut == std::string_view::npos ? std::string_view() : rest.substr(cut + 1);
  }
  return any ? !one_met : !all_met;
}

NodeCaps::NodeCaps(const Snapshot& snapshot, const std::vector<ElasticJob>& holding,
                   std::size_t partition_nodes, const QueuePolicy& policy)
    : policy_(policy),
      partition_cap_(partition_nodes *
                     static_cast<std::size_t>(std::max(0, policy.max_elastic_percent)) / 100) {
  for (const Job& job : snapshot.jobs) owners_[job.id] = {user_of(job), job.account};
  for (const ElasticJob& job : holding) grant(job.job_id, job.nodes.size());
}

std::pair<std::string, std::string> NodeCaps::owner(std::uint32_t job_id) const {
  const auto it = owners_.find(job_id);
  return it == owners_.end() ? std::pair<std::string, std::string>{} : it->second;
}

std::size_t NodeCaps::allowed(std::uint32_t job_id, std::size_t wanted, bool with_share) const {
  const auto [user, account] = owner(job_id);
  const auto headroom = [](int cap, std::size_t used) -> std::size_t {
    if (cap <= 0) return SIZE_MAX;
    return used >= static_cast<std::size_t>(cap) ? 0 : static_cast<std::size_t>(cap) - used;
  };
  const auto used = [](const std::map<std::string, std::size_t>& by, const std::string& key) {
    const auto it = by.find(key);
    return it == by.end() ? std::size_t{0} : it->second;
  };
  std::size_t room =
      std::min(wanted, headroom(policy_.max_nodes_per_user, used(user_nodes_, user)));
  room = std::min(room, headroom(policy_.max_nodes_per_account, used(account_nodes_, account)));
  if (with_share) room = std::min(room, share_left());
  return room;
}

std::size_t NodeCaps::share_left() const {
  return partition_cap_ > elastic_nodes_ ? partition_cap_ - elastic_nodes_ : 0;
}

void NodeCaps::grant(std::uint32_t job_id, std::size_t nodes) {
  const auto [user, account] = owner(job_id);
  user_nodes_[user] += nodes;
  account_nodes_[account] += nodes;
  elastic_nodes_ += nodes;
}

namespace {

// Elastic jobs that Slurm runs, or is about to start, and that are not in `managed`: admitted
// ones whose launcher has not registered yet (the first second or so of every job) and jobs
// Slurm started itself (submitted neither held nor parked). Satellites are not jobs of their
// own. Each with the nodes it holds (an admitted job not started yet: the count it was
// admitted at).
std::vector<std::pair<std::uint32_t, std::size_t>> unmanaged_elastic(
    const Snapshot& snapshot, const JobIndex& jobs, const std::vector<ElasticJob>& managed,
    const std::string& elastic_partition) {
  std::set<std::uint32_t> known;
  for (const ElasticJob& job : managed) known.insert(job.job_id);
  std::vector<std::pair<std::uint32_t, std::size_t>> unmanaged;
  for (const Job& job : snapshot.jobs) {
    if (job.partition != elastic_partition || known.contains(job.id)) continue;
    // Released by an admission (its mark written, neither held nor parked): Slurm starts it in
    // a moment. A parked job with a mark (requeued, parked again) waits: it is a candidate.
    const bool admitted = job.state == JobState::pending &&
                          !waits_for_admission(job, snapshot.taken_at) &&
                          read_job_mark(job.admin_comment).time_limit_minutes.has_value();
    if (!holds_nodes(job) && !admitted) continue;
    if (const std::optional<std::uint32_t> owner = satellite_owner(job.name)) {
      const Job* owner_job = jobs.find(*owner);
      if (owner_job != nullptr && is_satellite_of(job, *owner_job)) continue;
    }
    unmanaged.emplace_back(job.id, std::max<std::size_t>(job.nodes.size(), job.min_nodes));
  }
  return unmanaged;
}

// The running jobs that overtook `head` to requeue so that its `min_nodes` fit: a job given back
// frees its minimum (the rest of its nodes are in `free_nodes` already) and its share. The most
// recently admitted first (the highest job id: ids grow with submission), as few as needed;
// none when even all of them would not make room (the head waits on, they run on).
std::vector<std::uint32_t> make_way(const std::vector<ElasticJob>& running,
                                    const std::map<std::uint32_t, std::uint32_t>& overtook,
                                    std::uint32_t head, std::size_t min_nodes,
                                    std::size_t free_nodes, const NodeCaps& caps) {
  std::vector<const ElasticJob*> overtakers;
  for (const ElasticJob& job : running) {
    const auto passed = overtook.find(job.job_id);
    if (passed != overtook.end() && passed->second == head) overtakers.push_back(&job);
  }
  std::ranges::sort(overtakers,
                    [](const ElasticJob* a, const ElasticJob* b) { return a->job_id > b->job_id; });
  std::size_t free = free_nodes;
  std::size_t share = caps.share_left();
  std::vector<std::uint32_t> give_way;
  for (const ElasticJob* job : overtakers) {
    if (min_nodes <= std::min(free, share)) break;
    const std::size_t held = job->nodes.size();
    free += std::min(held, static_cast<std::size_t>(std::max(1, job->given.min_nodes)));
    share += held;
    give_way.push_back(job->job_id);
  }
  if (min_nodes > std::min(free, share)) return {};
  return give_way;
}

// `candidates` in their order, but a job that gave way to a head still waiting (requeued for
// it: `overtook` still names that head) right after it: a requeued job comes back parked, and
// parked jobs go before held ones, so it would otherwise be admitted ahead of the job it made
// room for, and take the room.
std::vector<ElasticJob> behind_the_heads_they_gave_way_to(
    std::vector<ElasticJob> candidates, const std::map<std::uint32_t, std::uint32_t>& overtook) {
  std::set<std::uint32_t> waiting;
  for (const ElasticJob& candidate : candidates) waiting.insert(candidate.job_id);
  std::map<std::uint32_t, std::vector<ElasticJob>> behind;  // head -> the jobs kept after it
  std::vector<ElasticJob> ordered;
  for (ElasticJob& candidate : candidates) {
    const auto head = overtook.find(candidate.job_id);
    if (head != overtook.end() && waiting.contains(head->second) &&
        !std::ranges::any_of(ordered,
                             [&](const ElasticJob& job) { return job.job_id == head->second; })) {
      behind[head->second].push_back(std::move(candidate));
      continue;
    }
    const std::uint32_t id = candidate.job_id;
    ordered.push_back(std::move(candidate));
    if (const auto kept = behind.find(id); kept != behind.end()) {
      for (ElasticJob& job : kept->second) ordered.push_back(std::move(job));
      behind.erase(kept);
    }
  }
  return ordered;
}

}  // namespace

Admission order_admissions(const Snapshot& snapshot, const std::vector<ElasticJob>& running,
                           std::vector<ElasticJob> candidates, std::size_t free_nodes,
                           std::size_t partition_nodes, const std::string& elastic_partition,
                           const QueuePolicy& policy, const Backfilled& backfilled) {
  const std::map<std::uint32_t, std::uint32_t>& overtook = backfilled.overtook;
  const JobIndex jobs(snapshot);
  const auto key = [&](const ElasticJob& candidate) {
    const Job* job = jobs.find(candidate.job_id);
    // A held job's is 0 in Slurm (the hold), a parked job's what Slurm computes: parked jobs
    // go first, by priority; held ones after them, first come, first served.
    const std::uint32_t priority = job != nullptr ? job->priority : 0;
    const std::int64_t submitted = job != nullptr ? job->submit_time : 0;
    // Higher priority first, then the earlier submission, then the lower id.
    return std::tuple{-static_cast<std::int64_t>(priority), submitted, candidate.job_id};
  };
  std::stable_sort(candidates.begin(), candidates.end(),
                   [&](const ElasticJob& a, const ElasticJob& b) { return key(a) < key(b); });
  candidates = behind_the_heads_they_gave_way_to(std::move(candidates), overtook);

  std::map<std::string, std::size_t> user_jobs;
  std::map<std::string, std::size_t> account_jobs;
  const auto count_job = [&](std::uint32_t job_id) {
    const Job* job = jobs.find(job_id);
    if (job == nullptr) return;
    ++user_jobs[user_of(*job)];
    ++account_jobs[job->account];
  };
  for (const ElasticJob& job : running) count_job(job.job_id);
  NodeCaps caps(snapshot, running, partition_nodes, policy);
  // Without these, a user's second job was admitted in the poll after the first one's
  // admission, before its launcher registered (elastic.queue_order_and_cap).
  for (const auto& [job_id, nodes] :
       unmanaged_elastic(snapshot, jobs, running, elastic_partition)) {
    count_job(job_id);
    caps.grant(job_id, nodes);
  }

  Admission result;
  bool head_makes_way = false;  // the head fits once its overtakers give way: nobody passes now
  for (ElasticJob& candidate : candidates) {
    const Job* job = jobs.find(candidate.job_id);
    const auto wait = [&](std::string why) {
      result.waiting.emplace_back(candidate.job_id, std::move(why));
    };
    const auto min_nodes = static_cast<std::size_t>(std::max(1, candidate.given.min_nodes));
    if (job != nullptr && dependency_unmet(*job, jobs)) {
      wait("dependency not met (" + job->dependency + ")");
    } else if (job != nullptr && capped(policy.max_running_per_user, user_jobs[user_of(*job)])) {
      wait("user " + user_name(*job) + " runs max_running_per_user elastic jobs");
    } else if (job != nullptr &&
               capped(policy.max_running_per_account, account_jobs[job->account])) {
      wait("account " + job->account + " runs max_running_per_account elastic jobs");
    } else if (caps.allowed(candidate.job_id, min_nodes, false) < min_nodes) {
      wait("max_nodes_per_user or max_nodes_per_account leaves fewer than its " +
           std::to_string(min_nodes) + " nodes");
    } else if (head_makes_way) {
      wait("job " + std::to_string(result.head) + " is ahead of it in the queue");
    } else if (min_nodes > std::min(free_nodes, caps.share_left())) {
      // The partition's elastic share is room as the free nodes are.
      if (result.head != 0) {
        wait("waits for " + std::to_string(min_nodes) +
             " nodes (free, within max_elastic_percent); job " + std::to_string(result.head) +
             " is ahead of it in the queue");
        continue;
      }
      result.head = candidate.job_id;
      result.give_way = make_way(running, overtook, candidate.job_id, min_nodes, free_nodes, caps);
      // Jobs requeued for it are not running any more, nor are their nodes free yet: until
      // they are, nobody else takes the room they leave.
      const bool room_coming = std::ranges::any_of(backfilled.requeuing, [&](std::uint32_t id) {
        const auto passed = overtook.find(id);
        return passed != overtook.end() && passed->second == candidate.job_id;
      });
      head_makes_way = !result.give_way.empty() || room_coming;
      wait(head_makes_way ? "starts once the jobs that went past it give way (requeued)"
                          : "waits for " + std::to_string(min_nodes) +
                                " nodes (free, within max_elastic_percent)");
    } else {
      free_nodes -= min_nodes;
      count_job(candidate.job_id);
      caps.grant(candidate.job_id, min_nodes);
      if (result.head != 0) result.overtaking[candidate.job_id] = result.head;
      result.admissible.push_back(std::move(candidate));
    }
  }
  return result;
}

}  // namespace gaptrain::core
