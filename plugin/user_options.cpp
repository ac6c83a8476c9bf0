#include "user_options.hpp"

#include <string>

#include "process_state.hpp"

namespace gaptrain::plugin {
namespace {

SubmittedOptions& submitted() {
  static SubmittedOptions options;  // SPANK callbacks get no user pointer
  return options;
}

// Runs one option's parser in the submit side; a bad value is one line on the user's terminal
// and refuses the submission (-1). On the remote side the value was checked at submission, and
// refusing now would fail a job that already started.
template <typename Parse>
int accept_option(int remote, Parse&& parse) noexcept {
  if (remote != 0) return 0;
  return guarded("option check failed", -1, [&parse] {
    try {
      parse();
      return 0;
    } catch (const OptionError& e) {
      slurm_error("gaptrain: %s", e.what());
      return -1;
    }
  });
}

int on_elastic(int /*val*/, const char* arg, int remote) {
  return accept_option(remote, [arg] {
    submitted().elastic = true;
    if (arg != nullptr && *arg != '\0') submitted().range = parse_node_range(arg);
  });
}

int on_elastic_curve(int /*val*/, const char* arg, int remote) {
  return accept_option(remote,
                       [arg] { submitted().curve = read_curve_file(arg != nullptr ? arg : ""); });
}

int on_elastic_cost(int /*val*/, const char* arg, int remote) {
  return accept_option(remote,
                       [arg] { submitted().costs = parse_costs(arg != nullptr ? arg : ""); });
}

int on_elastic_notice(int /*val*/, const char* arg, int remote) {
  return accept_option(remote,
                       [arg] { submitted().notice_s = parse_notice(arg != nullptr ? arg : ""); });
}

int on_elastic_batch(int /*val*/, const char* arg, int remote) {
  return accept_option(remote,
                       [arg] { submitted().batch = parse_batch_range(arg != nullptr ? arg : ""); });
}

int on_elastic_noise_scale(int /*val*/, const char* arg, int remote) {
  return accept_option(
      remote, [arg] { submitted().noise_scale = parse_noise_scale(arg != nullptr ? arg : ""); });
}

int on_elastic_mix_types(int /*val*/, const char* /*arg*/, int remote) {
  return accept_option(remote, [] { submitted().mix_types = true; });
}

// spank_option's strings are char*; Slurm only reads them.
char* text(const char* literal) {
  return const_cast<char*>(literal);
}

spank_option elastic{text("elastic"),
                     text("[MIN-MAX]"),
                     text("Run as an elastic job that gaptrain grows into idle nodes and shrinks "
                          "back; MIN-MAX is the node range it can run on (repeat Slurm's -N "
                          "MIN-MAX); MIN-MAX:STEP or a list (2,4,8) allows only those counts"),
                     2,
                     0,
                     on_elastic};
spank_option elastic_curve{text("elastic-curve"),
                           text("FILE"),
                           text("CSV of measured throughput, lines \"nodes,samples_per_s\", or "
                                "\"type,nodes,samples_per_s\" for a curve per node type (the job "
                                "then runs on those types only; needs --elastic)"),
                           1,
                           0,
                           on_elastic_curve};
spank_option elastic_cost{
    text("elastic-cost"),
    text("UP:DOWN"),
    text("Seconds the job loses when it grows (UP) and shrinks (DOWN) (needs --elastic)"),
    1,
    0,
    on_elastic_cost};
spank_option elastic_notice{
    text("elastic-notice"),
    text("S"),
    text("Seconds of notice the job wants before gaptrain takes one of its nodes (needs "
         "--elastic; default 30, capped by the site)"),
    1,
    0,
    on_elastic_notice};
spank_option elastic_batch{
    text("elastic-batch"),
    text("M0:MAX[:PERNODE]"),
    text("Global batch sizes the job may train at: M0 it was tuned at, up to MAX, at most "
         "PERNODE samples a node per micro-step; gaptrain chooses the batch and learning-rate "
         "gain for each node count (needs --elastic)"),
    1,
    0,
    on_elastic_batch};
spank_option elastic_mix_types{
    text("elastic-mix-types"),
    nullptr,
    text("The job may run on nodes of several node types at once, at its one curve (without it "
         "gaptrain keeps a job on one type at a time; needs --elastic, not a per-type curve)"),
    0,
    0,
    on_elastic_mix_types};
spank_option elastic_noise_scale{
    text("elastic-noise-scale"),
    text("PHI"),
    text("The job's gradient noise scale in samples at M0 (needs --elastic-batch; default: "
         "learned from the job's progress, M0 until then)"),
    1,
    0,
    on_elastic_noise_scale};

}  // namespace

const SubmittedOptions& submitted_options() {
  return submitted();
}

const char* first_option_needing_elastic(const SubmittedOptions& options) noexcept {
  if (options.curve) return "elastic-curve";
  if (options.costs) return "elastic-cost";
  if (options.notice_s) return "elastic-notice";
  if (options.batch) return "elastic-batch";
  if (options.noise_scale) return "elastic-noise-scale";
  if (options.mix_types) return "elastic-mix-types";
  return nullptr;
}

void register_user_options(spank_t sp) noexcept {
  for (spank_option* option : {&elastic, &elastic_curve, &elastic_cost, &elastic_notice,
                               &elastic_batch, &elastic_noise_scale, &elastic_mix_types}) {
    if (spank_option_register(sp, option) != ESPANK_SUCCESS) {
      slurm_error("gaptrain: cannot register option --%s", option->name);
    }
  }
}

spank_option* elastic_option() noexcept {
  return &elastic;
}
spank_option* elastic_cost_option() noexcept {
  return &elastic_cost;
}
spank_option* elastic_notice_option() noexcept {
  return &elastic_notice;
}
spank_option* elastic_batch_option() noexcept {
  return &elastic_batch;
}
spank_option* elastic_noise_scale_option() noexcept {
  return &elastic_noise_scale;
}
spank_option* elastic_mix_types_option() noexcept {
  return &elastic_mix_types;
}

}  // namespace gaptrain::plugin
