// Copyright 2026 The custody Authors.

#include "custody/report/html.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_format.h"
#include "custody/report/json.h"
#include "custody/report/model.h"
#include "custody/report/page_assets.h"
#include "custody/report/verdict.h"

namespace custody::report {

std::string html_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

namespace {

// The figures the runners measured themselves (a server's throughput and
// latency), with the frees made on another thread than the allocation's.
void figures_table(std::string& o, const WorkloadData& w) {
  const ContenderData* first = nullptr;
  for (const ContenderData& c : w.contenders) {
    if (!c.figures.empty()) {
      first = &c;
      break;
    }
  }
  if (first == nullptr) return;
  o += "<table class=\"summary figures\"><thead><tr><th>contender</th>";
  for (const auto& [name, value] : first->figures) absl::StrAppend(&o, "<th>", html_escape(name), "</th>");
  o += "<th>cross-thread frees</th></tr></thead><tbody>\n";
  for (const ContenderData& c : w.contenders) {
    absl::StrAppend(&o, "<tr><td>", html_escape(c.name), "</td>");
    for (const auto& [name, value] : c.figures) absl::StrAppend(&o, "<td>", absl::StrFormat("%.3f", value), "</td>");
    absl::StrAppend(&o, "<td>", c.has_memory ? absl::StrCat(c.held_dead.cross_thread_frees) : "-", "</td></tr>\n");
  }
  o += "</tbody></table>\n";
}

void summary_table(std::string& o, const WorkloadData& w) {
  const double peer = peer_ms(w);
  o += "<table class=\"summary\"><thead><tr><th>contender</th><th>median ms</th><th>min ms</th><th>× peer</th>"
       "<th>peak MiB</th><th>bound MiB</th><th>× bound</th><th>held dead %</th><th>dead at peak MiB</th>"
       "<th>leaked B</th><th>LoC</th></tr></thead><tbody>\n";
  for (const ContenderData& c : w.contenders) {
    absl::StrAppend(&o, "<tr><td>", html_escape(c.name), "</td><td>", absl::StrFormat("%.3f", c.median_ms),
                    "</td><td>", absl::StrFormat("%.3f", c.min_ms), "</td><td>",
                    peer > 0 ? absl::StrFormat("%.2f", c.median_ms / peer) : "-", "</td>");
    if (!c.has_memory) {
      o += "<td>-</td><td>-</td><td>-</td><td>-</td><td>-</td><td>-</td><td>-</td></tr>\n";
      continue;
    }
    const double r = bound_ratio(c);
    absl::StrAppend(&o, "<td>", mib(c.peak_bytes), "</td><td>", mib(c.lower_bound_bytes), "</td><td>",
                    std::isfinite(r) ? absl::StrFormat("%.2f", r) : "-", "</td><td>",
                    absl::StrFormat("%.1f", 100 * c.held_dead.held_dead_share()), "</td><td>",
                    mib(c.held_dead.dead_at_peak_bytes), "</td><td>", c.leaked_bytes, "</td><td>",
                    c.lines_of_code > 0 ? absl::StrCat(c.lines_of_code) : "-", "</td></tr>\n");
  }
  o += "</tbody></table>\n";
  figures_table(o, w);
}

// The site's category, and for tensors saved for backward the node that saved them.
std::string category_cell(const SiteHeld& s) {
  if (s.saved_by.empty()) return category_name(s.category);
  return absl::StrCat(category_name(s.category), " (saved by ", html_escape(s.saved_by), ")");
}

std::string stack_details(const SiteHeld& s) {
  return absl::StrCat("<details><summary><code>", html_escape(s.frame), "</code>",
                      s.ops.empty() ? "" : absl::StrCat(" <span class=\"op\">", html_escape(absl::StrJoin(s.ops, ", ")), "</span>"),
                      "</summary><pre>",
                      html_escape(s.stack.empty() ? "(no stack)" : s.stack), "</pre></details>");
}

// What was alive at the peak, by category and by site: shown on hovering the peak.
void peak_detail(std::string& o, const ContenderData& c) {
  const HeldDead& h = c.held_dead;
  absl::StrAppend(&o, "<div class=\"peak-detail\" hidden><b>At the peak</b> (", mib(h.peak_bytes), " MiB at ",
                  c.name, " step ", absl::StrFormat("%.2f", h.peak_step), "; ", mib(h.dead_at_peak_bytes),
                  " MiB already past its last use)<table><tr><th>category</th><th>alive MiB</th><th>dead MiB</th></tr>");
  for (const CategoryStyle& cs : kStack) {
    const auto k = static_cast<size_t>(cs.category);
    if (h.peak_by_category[k] == 0) continue;
    absl::StrAppend(&o, "<tr><td><span class=\"sw\" style=\"background:", cs.color, "\"></span>",
                    category_name(cs.category), "</td><td>", mib(h.peak_by_category[k]), "</td><td>",
                    mib(h.dead_at_peak_by_category[k]), "</td></tr>");
  }
  o += "</table><table><tr><th>site</th><th>category</th><th>alive MiB</th><th>dead MiB</th></tr>";
  std::vector<const SiteHeld*> sites;
  for (const SiteHeld& s : h.sites) {
    if (s.alive_at_peak_bytes > 0) sites.push_back(&s);
  }
  std::stable_sort(sites.begin(), sites.end(), [](const SiteHeld* a, const SiteHeld* b) {
    return a->alive_at_peak_bytes > b->alive_at_peak_bytes;
  });
  if (sites.size() > 8) sites.resize(8);
  for (const SiteHeld* s : sites) {
    absl::StrAppend(&o, "<tr><td><code>", html_escape(s->frame), "</code></td><td>", category_cell(*s),
                    "</td><td>", mib(s->alive_at_peak_bytes), "</td><td>", mib(s->dead_at_peak_bytes), "</td></tr>");
  }
  o += "</table></div>";
}

// What held the dead byte-time (Note [Held by], core/stats.h): the first holder as a sentence, then
// the top holders as a table.
void held_by_table(std::string& o, const HeldDead& h) {
  if (h.held_by.empty() || h.held_dead_byte_steps <= 0) return;
  const auto share = [&](const HeldByShare& b) {
    return absl::StrFormat("%.0f %%", 100 * b.held_dead_byte_steps / h.held_dead_byte_steps);
  };
  absl::StrAppend(&o, "<p class=\"held-by\">", share(h.held_by[0]), " of the dead byte-time was held by ",
                  html_escape(h.held_by[0].label()), ".</p>");
  o += "<table class=\"held-by\"><tr><th>held by</th><th>released at</th><th>allocations</th>"
       "<th>held dead MiB×steps</th><th>share</th></tr>";
  for (size_t i = 0; i < std::min<size_t>(h.held_by.size(), 8); ++i) {
    const HeldByShare& b = h.held_by[i];
    absl::StrAppend(&o, "<tr><td>", html_escape(b.holder), "</td><td><code>", html_escape(b.released_at),
                    "</code></td><td>", b.allocations, "</td><td>",
                    absl::StrFormat("%.2f", b.held_dead_byte_steps / kMiB), "</td><td>", share(b), "</td></tr>");
  }
  o += "</table>";
}

void held_dead_table(std::string& o, const ContenderData& c) {
  const HeldDead& h = c.held_dead;
  const bool collected = h.collections > 0;
  absl::StrAppend(&o, "<p class=\"held\">Held past last use: <b>",
                  absl::StrFormat("%.1f%%", 100 * h.held_dead_share()), "</b> of ",
                  absl::StrFormat("%.1f", h.byte_steps / kMiB), " MiB×steps");
  if (collected) {
    absl::StrAppend(&o, "; of that, at most ",
                    absl::StrFormat("%.1f%%", h.held_dead_byte_steps > 0
                                                  ? 100 * h.awaiting_collection_byte_steps / h.held_dead_byte_steps
                                                  : 0.0),
                    " garbage awaiting one of ", h.collections, " collections, the rest held by the program");
  }
  o += ".</p>";
  held_by_table(o, h);
  std::vector<const SiteHeld*> sites;
  for (const SiteHeld& s : h.sites) {
    if (s.held_dead_byte_steps > 0) sites.push_back(&s);
  }
  if (sites.size() > 10) sites.resize(10);
  if (!sites.empty()) {
    absl::StrAppend(&o, "<table class=\"sites\"><tr><th>site (first frame outside custody)</th><th>category</th>"
                        "<th>allocations</th><th>MiB</th><th>held dead MiB×steps</th><th>share</th>"
                        "<th>dead at peak MiB</th><th>held by</th>",
                    collected ? "<th>awaiting collection ≤</th>" : "", "</tr>");
    for (const SiteHeld* s : sites) {
      absl::StrAppend(&o, "<tr><td>", stack_details(*s), "</td><td>", category_cell(*s), "</td><td>",
                      s->allocations, "</td><td>", mib(s->bytes), "</td><td>",
                      absl::StrFormat("%.2f", s->held_dead_byte_steps / kMiB), "</td><td>",
                      absl::StrFormat("%.1f%%", h.held_dead_byte_steps > 0
                                                    ? 100 * s->held_dead_byte_steps / h.held_dead_byte_steps
                                                    : 0.0),
                      "</td><td>", mib(s->dead_at_peak_bytes), "</td><td class=\"holder\">",
                      html_escape(s->held_by), "</td>",
                      collected ? absl::StrCat("<td>", absl::StrFormat("%.2f", s->awaiting_collection_byte_steps / kMiB),
                                        "</td>")
                         : "",
                      "</tr>");
    }
    o += "</table>";
  }
  std::vector<const SiteHeld*> leaks;
  for (const SiteHeld& s : h.sites) {
    if (s.unfreed_bytes > 0) leaks.push_back(&s);
  }
  if (c.leaked_bytes > 0 || c.leaked_tensors > 0) {
    absl::StrAppend(&o, "<p class=\"leak\">Leaked: ", c.leaked_bytes, " bytes in ", c.leaked_tensors,
                    " tensors", leaks.empty() ? "." : ", made at:", "</p>");
  }
  if (!leaks.empty()) {
    o += "<table class=\"leaks\"><tr><th>never freed, made at</th><th>category</th><th>bytes</th></tr>";
    for (const SiteHeld* s : leaks) {
      absl::StrAppend(&o, "<tr><td>", stack_details(*s), "</td><td>", category_cell(*s), "</td><td>",
                      s->unfreed_bytes, "</td></tr>");
    }
    o += "</table>";
  }
}


}  // namespace

std::string render_html(std::string_view title, const std::vector<WorkloadData>& workloads) {
  // The assets are std::string_views, which Debian's Abseil does not take as an AlphaNum
  // (its absl::string_view is its own type: third_party/BUILD, "absl"): appended with +=.
  std::string o = absl::StrCat("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>",
                               html_escape(title), "</title><style>\n");
  o += kReportCss;
  absl::StrAppend(&o, "</style></head><body>\n<h1>", html_escape(title),
                  "</h1>\n<pre id=\"errors\"></pre>\n<p>Timelines: bytes in use stacked by category; the black "
                  "line is the live-set bound's schedule (every allocation freed right after its last use), the "
                  "dashed line its peak. Hover a chart for the bytes at that moment, its red circle for what was "
                  "alive at the peak.</p>\n<p>");
  for (const CategoryStyle& cs : kStack) {
    absl::StrAppend(&o, "<span class=\"sw\" style=\"background:", cs.color, "\"></span>",
                    category_name(cs.category), " &nbsp; ");
  }
  o += "</p>\n";
  for (size_t wi = 0; wi < workloads.size(); ++wi) {
    const WorkloadData& w = workloads[wi];
    absl::StrAppend(&o, "<section class=\"workload\"><h2>", html_escape(w.workload), " on ", html_escape(w.backend),
                    "</h2><p>", html_escape(w.description), "; ", w.steps, " ", html_escape(w.unit),
                    "s per run.</p>\n<ul class=\"verdict\">");
    for (const std::string& s : verdict(w)) absl::StrAppend(&o, "<li>", html_escape(s), "</li>");
    o += "</ul>\n";
    summary_table(o, w);
    for (size_t ci = 0; ci < w.contenders.size(); ++ci) {
      const ContenderData& c = w.contenders[ci];
      if (!c.has_memory) continue;
      // Drawn by report.js from chart_data's workloads[wi].contenders[ci].
      absl::StrAppend(&o, "<h3>", html_escape(c.name), "</h3>\n<div class=\"chart\" data-w=\"", wi, "\" data-c=\"",
                      ci, "\" data-name=\"", html_escape(absl::StrCat(w.workload, "/", w.backend, "/", c.name)),
                      "\">");
      peak_detail(o, c);
      o += "</div>\n";
      held_dead_table(o, c);
      o += "\n";
    }
    o += "</section>\n";
  }
  absl::StrAppend(&o, "<pre id=\"selftest\"></pre>\n<script id=\"report-data\" type=\"application/json\">",
                  json_script_text(chart_data(workloads)), "</script>\n<script>\n");
  o += kReportJs;
  o += "</script>\n</body></html>\n";
  return o;
}

}  // namespace custody::report
