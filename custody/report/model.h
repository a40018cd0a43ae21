// Copyright 2026 The custody Authors.
//
// custody/report/model.h — what report.html shows, as data: per workload its
// contenders with their time and memory figures (the input, filled by the
// compare tool or a report::Session), the categories in the order the
// timelines stack them, the figures derived from the numbers (the ratio to
// the peer, to the live-set bound), and the JSON the page's script draws the
// timelines from (chart_data). The verdict (verdict.h) and the page (html.h)
// read it; neither computes a figure of its own.

#ifndef CUSTODY_CUSTODY_REPORT_MODEL_H_
#define CUSTODY_CUSTODY_REPORT_MODEL_H_

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "core/stats.h"
#include "custody/report/held_dead.h"
#include "custody/report/json.h"

namespace custody::report {

// One contender of a workload: a policy (with memory figures) or a peer (time only).
struct ContenderData {
  std::string name;    // "scope", "gc:trigger_8MiB", "libtorch"
  std::string policy;  // empty for a peer without memory figures
  double median_ms = 0, min_ms = 0;  // per step; 0: not timed
  int lines_of_code = 0;             // of its idiom; 0: unknown
  bool has_memory = false;
  int64_t peak_bytes = 0, lower_bound_bytes = 0;
  int64_t leaked_bytes = 0, leaked_tensors = 0;
  HeldDead held_dead;
  // What the runner measured itself (a server's requests_per_s, p50_ms, ...), in its order.
  std::vector<std::pair<std::string, double>> figures;
};

struct WorkloadData {
  std::string workload, backend, unit, description;
  int64_t steps = 0;
  std::vector<ContenderData> contenders;
};

// A memory category and the color the page draws it in.
struct CategoryStyle {
  MemoryCategory category;
  const char* color;
};

// Every category, in the order the timelines stack them, bottom first.
inline constexpr CategoryStyle kStack[] = {
    {MemoryCategory::kParameter, "#4e79a7"}, {MemoryCategory::kOptimizerState, "#76b7b2"},
    {MemoryCategory::kInput, "#59a14f"},     {MemoryCategory::kActivation, "#f28e2b"},
    {MemoryCategory::kAutogradSaved, "#b07aa1"}, {MemoryCategory::kGradient, "#e15759"},
    {MemoryCategory::kTemporary, "#edc948"},     {MemoryCategory::kUnknown, "#bab0ac"},
};
static_assert(static_cast<int>(std::size(kStack)) == kNumMemoryCategories);

inline constexpr double kMiB = 1 << 20;

// Bytes as the report writes them: MiB with two decimals.
std::string mib(double bytes);

// The peer's median time per step (the first timed contender without memory
// figures); 0 when there is none.
double peer_ms(const WorkloadData& w);

// The contender's peak over its live-set bound; NaN without a bound.
double bound_ratio(const ContenderData& c);

// The indices of the timeline samples a chart draws: all of them up to
// 2 × kChartBuckets, else per bucket of consecutive samples its lowest and
// highest total, in order (the peak among them).
inline constexpr size_t kChartBuckets = 1000;
std::vector<size_t> chart_samples(const std::vector<TimelineSample>& timeline);

// The data report.js draws from, embedded in the page:
//
//   {"categories": [name, ...], "colors": [css color, ...],   (kStack order)
//    "workloads": [{"workload", "unit",
//                   "contenders": [{"name", "has_memory",
//                                   and with memory: "peak_bytes", "peak_step", "lower_bound_bytes",
//                                   "samples": [[step, bytes of each category..., bound], ...]}]}]}
//
// A chart <div> of the page names its workload and contender by their
// indices here (data-w, data-c).
Json chart_data(const std::vector<WorkloadData>& workloads);

}  // namespace custody::report

#endif  // CUSTODY_CUSTODY_REPORT_MODEL_H_
