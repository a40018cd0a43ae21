// Copyright 2026 The custody Authors.
//
// custody/report/html.h — the report a person reads: one self-contained HTML
// file (no network: its script and charts are inline) with, per workload, the
// comparison table, a verdict computed from the numbers (verdict.h), and per
// contender an interactive bytes-in-use timeline stacked by category with the
// live-set bound's schedule drawn over it (hover: the bytes at that moment;
// the peak: what was alive then, by category and site), the sites holding
// memory past its last use with their stacks, and the leaks with theirs.
//
//   report::WorkloadData w{"mlp", "onednn", "training step", "...", 20, {}};
//   w.contenders.push_back(...);                 // one per policy, plus the peer
//   write(path, report::render_html("custody compare", {w}));
//
// The page is the HTML around the model (model.h): its tables are written
// here, its timelines drawn in the browser by report.js from the model's
// chart_data() embedded as JSON, styled by report.css; both files are carried
// in the binary (page_assets, cc_embedded_text in tools/build_defs/embed.bzl).
// The compare tool writes compare-out/report.html; custody::report::start()
// and write_html() (report.h) write one for any program.

#ifndef CUSTODY_CUSTODY_REPORT_HTML_H_
#define CUSTODY_CUSTODY_REPORT_HTML_H_

#include <string>
#include <string_view>
#include <vector>

#include "custody/report/model.h"

namespace custody::report {

// The whole page.
std::string render_html(std::string_view title, const std::vector<WorkloadData>& workloads);

// `s` as HTML text or an attribute value: < > & " ' escaped.
std::string html_escape(std::string_view s);

}  // namespace custody::report

#endif  // CUSTODY_CUSTODY_REPORT_HTML_H_
