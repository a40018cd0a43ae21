// Copyright 2026 The custody Authors.
//
// tools/report/html.h — the report a person reads: one self-contained HTML
// file (no network: its script and charts are inline) with, per workload, the
// comparison table, a verdict computed from the numbers, and per contender an
// interactive bytes-in-use timeline stacked by category with the live-set
// bound's schedule drawn over it (hover: the bytes at that moment; the peak:
// what was alive then, by category and site), the sites holding memory past
// its last use with their stacks, and the leaks with theirs.
//
//   report::WorkloadData w{"mlp", "onednn", "training step", "...", 20, {}};
//   w.contenders.push_back(...);                 // one per policy, plus the peer
//   write(path, report::render_html("custody compare", {w}));
//
// The compare tool writes compare-out/report.html; custody::report::start()
// and write_html() (report.h) write one for any program.

#ifndef CUSTODY_TOOLS_REPORT_HTML_H_
#define CUSTODY_TOOLS_REPORT_HTML_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tools/report/held_dead.h"

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

// A few sentences on the workload computed from its numbers: the fastest
// contender (and its ratio to the peer), the one nearest the live-set bound,
// the one holding least memory past its last use, the cheapest to write, and
// any leak.
std::vector<std::string> verdict(const WorkloadData& w);

// The whole page.
std::string render_html(std::string_view title, const std::vector<WorkloadData>& workloads);

// JSON and HTML text escapes shared by the writers.
std::string json_string(std::string_view s);
std::string json_number(double v);  // "null" when not finite
std::string html_escape(std::string_view s);

}  // namespace custody::report

#endif  // CUSTODY_TOOLS_REPORT_HTML_H_
