// The user options --elastic, --elastic-curve, --elastic-cost, --elastic-notice, --elastic-batch
// and --elastic-noise-scale: SPANK's option table, one named callback per option beside the parser
// it calls (options.hpp), and what the callbacks accepted in this process. Other files reach an
// option by name, never by its table position.
#pragma once

#include <slurm/spank.h>

#include <optional>

#include "option_parsing.hpp"

namespace gaptrain::plugin {

// What the submit side's callbacks accepted (sbatch, salloc, srun; empty elsewhere).
struct SubmittedOptions {
  bool elastic = false;
  std::optional<NodeSizes> range;
  std::optional<TypedCurves> curve;
  std::optional<Costs> costs;
  std::optional<double> notice_s;
  std::optional<BatchRange> batch;
  std::optional<double> noise_scale;
  bool mix_types = false;  // --elastic-mix-types
};

// The first option given that needs --elastic ("elastic-curve", ...); nullptr when none is.
const char* first_option_needing_elastic(const SubmittedOptions& options) noexcept;

const SubmittedOptions& submitted_options();

// Registers every option with Slurm: sbatch and salloc only see options registered this way,
// and slurmstepd must know the same names to receive their values. Logs each failure.
void register_user_options(spank_t sp) noexcept;

// For spank_option_getopt, which reads an option's value in the remote and job-script contexts.
spank_option* elastic_option() noexcept;
spank_option* elastic_cost_option() noexcept;
spank_option* elastic_notice_option() noexcept;
spank_option* elastic_batch_option() noexcept;
spank_option* elastic_noise_scale_option() noexcept;
spank_option* elastic_mix_types_option() noexcept;

}  // namespace gaptrain::plugin
