// The scenario `gaptrain simulate` runs when given no input files: the KTH-SP2 log (Parallel
// Workloads Archive, 100 nodes, Sep 1996 - Aug 1997; examples/kth-sp2/) with the example job
// mix of three ImageNet models, compiled into the binary.
#pragma once

#include <string>
#include <string_view>

namespace gaptrain::cli {

inline constexpr std::string_view kDefaultTraceName = "KTH-SP2-1996-2.1-cln.swf.gz";
inline constexpr std::string_view kDefaultJobsName = "jobs-example.csv";
inline constexpr std::string_view kDefaultCurvesName = "curves.csv";

// The 30-job mix takes about 5 hours of KTH's holes; resubmitted every 4 hours it keeps the
// holes supplied with work for the whole 11 months, so policies are compared on how much they
// get out of the holes, not on when a finite mix happens to run out.
inline constexpr double kDefaultRepeatS = 4 * 3600.0;

std::string default_swf_text();  // gunzipped
std::string_view default_jobs_csv();
std::string_view default_curves_csv();

}  // namespace gaptrain::cli
