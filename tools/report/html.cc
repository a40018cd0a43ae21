// Copyright 2026 The custody Authors.

#include "tools/report/html.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace custody::report {

std::string json_string(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (u < 0x20 || c == '<' || c == '>' || c == '&') {
      // < > & escaped too: the text stays inert inside an HTML <script> element.
      out += absl::StrFormat("\\u%04x", u);
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string json_number(double v) {
  if (!std::isfinite(v)) return "null";
  return absl::StrFormat("%.6g", v);
}

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

constexpr double kMiB = 1 << 20;
std::string mib(double bytes) { return absl::StrFormat("%.2f", bytes / kMiB); }

// Categories in the order they are stacked, bottom first, with their colors.
struct CategoryStyle {
  MemoryCategory category;
  const char* color;
};
constexpr CategoryStyle kStack[] = {
    {MemoryCategory::kParameter, "#4e79a7"}, {MemoryCategory::kOptimizerState, "#76b7b2"},
    {MemoryCategory::kInput, "#59a14f"},     {MemoryCategory::kActivation, "#f28e2b"},
    {MemoryCategory::kGradient, "#e15759"},  {MemoryCategory::kTemporary, "#edc948"},
    {MemoryCategory::kUnknown, "#bab0ac"},
};

double peer_ms(const WorkloadData& w) {
  for (const ContenderData& c : w.contenders) {
    if (!c.has_memory && c.median_ms > 0) return c.median_ms;
  }
  return 0;
}

double bound_ratio(const ContenderData& c) {
  return c.lower_bound_bytes > 0 ? static_cast<double>(c.peak_bytes) / static_cast<double>(c.lower_bound_bytes)
                                 : std::numeric_limits<double>::quiet_NaN();
}

// The timeline, at most ~2 × kBuckets samples: per bucket of consecutive
// samples its lowest and highest total, in order, and always the peak.
constexpr size_t kBuckets = 1000;
std::vector<size_t> thinned(const std::vector<TimelineSample>& t) {
  std::vector<size_t> keep;
  if (t.size() <= 2 * kBuckets) {
    for (size_t i = 0; i < t.size(); ++i) keep.push_back(i);
    return keep;
  }
  const size_t per = (t.size() + kBuckets - 1) / kBuckets;
  for (size_t b = 0; b < t.size(); b += per) {
    const size_t e = std::min(t.size(), b + per);
    size_t lo = b, hi = b;
    for (size_t i = b; i < e; ++i) {
      if (t[i].total() < t[lo].total()) lo = i;
      if (t[i].total() > t[hi].total()) hi = i;
    }
    keep.push_back(std::min(lo, hi));
    if (lo != hi) keep.push_back(std::max(lo, hi));
  }
  return keep;
}

std::string contender_json(const ContenderData& c) {
  std::string f = absl::StrCat("{\"name\": ", json_string(c.name), ", \"has_memory\": ",
                               c.has_memory ? "true" : "false");
  if (!c.has_memory) return f + "}";
  const HeldDead& h = c.held_dead;
  absl::StrAppend(&f, ", \"peak_bytes\": ", h.peak_bytes, ", \"peak_step\": ", json_number(h.peak_step),
                  ", \"lower_bound_bytes\": ", c.lower_bound_bytes, ", \"samples\": [");
  // Each sample: [step, bytes of each category in kStack order..., bound].
  const std::vector<size_t> keep = thinned(h.timeline);
  for (size_t k = 0; k < keep.size(); ++k) {
    const TimelineSample& s = h.timeline[keep[k]];
    absl::StrAppend(&f, k ? "," : "", "[", json_number(s.step));
    for (const CategoryStyle& cs : kStack) absl::StrAppend(&f, ",", s.by_category[static_cast<size_t>(cs.category)]);
    absl::StrAppend(&f, ",", s.bound, "]");
  }
  return f + "]}";
}

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

std::string stack_details(const SiteHeld& s) {
  return absl::StrCat("<details><summary><code>", html_escape(s.frame), "</code></summary><pre>",
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
    absl::StrAppend(&o, "<tr><td><code>", html_escape(s->frame), "</code></td><td>", category_name(s->category),
                    "</td><td>", mib(s->alive_at_peak_bytes), "</td><td>", mib(s->dead_at_peak_bytes), "</td></tr>");
  }
  o += "</table></div>";
}

void held_dead_table(std::string& o, const ContenderData& c) {
  const HeldDead& h = c.held_dead;
  const bool gc = h.collections > 0;
  absl::StrAppend(&o, "<p class=\"held\">Held past last use: <b>",
                  absl::StrFormat("%.1f%%", 100 * h.held_dead_share()), "</b> of ",
                  absl::StrFormat("%.1f", h.byte_steps / kMiB), " MiB×steps");
  if (gc) {
    absl::StrAppend(&o, "; of that, at most ",
                    absl::StrFormat("%.1f%%", h.held_dead_byte_steps > 0
                                                  ? 100 * h.awaiting_collection_byte_steps / h.held_dead_byte_steps
                                                  : 0.0),
                    " garbage awaiting one of ", h.collections, " collections, the rest held by the program");
  }
  o += ".</p>";
  std::vector<const SiteHeld*> sites;
  for (const SiteHeld& s : h.sites) {
    if (s.held_dead_byte_steps > 0) sites.push_back(&s);
  }
  if (sites.size() > 10) sites.resize(10);
  if (!sites.empty()) {
    absl::StrAppend(&o, "<table class=\"sites\"><tr><th>site (first frame outside custody)</th><th>category</th>"
                        "<th>allocations</th><th>MiB</th><th>held dead MiB×steps</th><th>share</th>"
                        "<th>dead at peak MiB</th>",
                    gc ? "<th>awaiting collection ≤</th>" : "", "</tr>");
    for (const SiteHeld* s : sites) {
      absl::StrAppend(&o, "<tr><td>", stack_details(*s), "</td><td>", category_name(s->category), "</td><td>",
                      s->allocations, "</td><td>", mib(s->bytes), "</td><td>",
                      absl::StrFormat("%.2f", s->held_dead_byte_steps / kMiB), "</td><td>",
                      absl::StrFormat("%.1f%%", h.held_dead_byte_steps > 0
                                                    ? 100 * s->held_dead_byte_steps / h.held_dead_byte_steps
                                                    : 0.0),
                      "</td><td>", mib(s->dead_at_peak_bytes), "</td>",
                      gc ? absl::StrCat("<td>", absl::StrFormat("%.2f", s->awaiting_collection_byte_steps / kMiB),
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
      absl::StrAppend(&o, "<tr><td>", stack_details(*s), "</td><td>", category_name(s->category), "</td><td>",
                      s->unfreed_bytes, "</td></tr>");
    }
    o += "</table>";
  }
}

constexpr char kStyle[] = R"css(
body { font: 14px/1.4 system-ui, sans-serif; margin: 2em; color: #222; max-width: 1100px; }
h2 { border-bottom: 1px solid #ccc; margin-top: 2em; }
table { border-collapse: collapse; margin: .5em 0; }
th, td { border: 1px solid #ddd; padding: 2px 6px; text-align: right; }
th:first-child, td:first-child { text-align: left; }
td pre { font-size: 11px; white-space: pre-wrap; max-width: 900px; }
.chart { position: relative; margin: 1em 0; }
.chart svg { background: #fafafa; border: 1px solid #eee; }
.tip { position: absolute; pointer-events: none; background: #fff; border: 1px solid #999; padding: 4px 6px;
       font-size: 12px; display: none; white-space: nowrap; }
.peak-detail { position: absolute; right: 0; top: 0; background: #fff; border: 1px solid #666; padding: 6px;
               font-size: 12px; z-index: 2; }
.sw { display: inline-block; width: 10px; height: 10px; margin-right: 4px; }
.verdict li { margin: .2em 0; }
.leak { color: #b00; }
#errors { color: #b00; }
)css";

constexpr char kScript[] = R"js(
(function () {
  'use strict';
  const errors = [];
  function noteErrors() {
    document.body.dataset.errors = String(errors.length);
    document.getElementById('errors').textContent = errors.join('\n');
  }
  window.addEventListener('error', function (e) { errors.push(String(e.message)); noteErrors(); });
  const consoleError = console.error;
  console.error = function () {
    errors.push(Array.prototype.join.call(arguments, ' '));
    noteErrors();
    consoleError.apply(console, arguments);
  };
  noteErrors();
  const data = JSON.parse(document.getElementById('report-data').textContent);
  const NS = 'http://www.w3.org/2000/svg';
  const W = 900, H = 260, L = 64, R = 12, T = 12, B = 34;
  function el(name, attrs, parent) {
    const e = document.createElementNS(NS, name);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }
  function fmt(bytes) { return (bytes / 1048576).toFixed(2) + ' MiB'; }

  function draw(box, c, unit) {
    const s = c.samples, nc = data.categories.length;
    const svg = el('svg', {width: W, height: H, viewBox: '0 0 ' + W + ' ' + H}, box);
    const t0 = s.length ? s[0][0] : 0;
    const t1 = s.length ? Math.max(s[s.length - 1][0], t0 + 1e-9) : 1;
    let ymax = Math.max(1, c.lower_bound_bytes);
    for (const p of s) {
      let tot = 0;
      for (let k = 1; k <= nc; ++k) tot += p[k];
      ymax = Math.max(ymax, tot, p[nc + 1]);
    }
    ymax *= 1.05;
    const x = t => L + (t - t0) / (t1 - t0) * (W - L - R);
    const y = b => H - B - b / ymax * (H - T - B);
    for (let i = 0; i <= 4; ++i) {  // axes
      const b = ymax * i / 4, yy = y(b);
      el('line', {x1: L, x2: W - R, y1: yy, y2: yy, stroke: '#e4e4e4'}, svg);
      el('text', {x: L - 4, y: yy + 4, 'text-anchor': 'end', 'font-size': 10}, svg).textContent =
          (b / 1048576).toFixed(2);
    }
    // Steps at round intervals (1, 2 or 5 times a power of ten), about six of them.
    const raw = (t1 - t0) / 6, mag = Math.pow(10, Math.floor(Math.log10(raw)));
    const every = [1, 2, 5, 10].map(m => m * mag).find(v => v >= raw);
    for (let t = Math.ceil(t0 / every) * every; t <= t1 + 1e-9; t += every) {
      el('line', {x1: x(t), x2: x(t), y1: H - B, y2: H - B + 3, stroke: '#888'}, svg);
      el('text', {x: x(t), y: H - B + 14, 'text-anchor': 'middle', 'font-size': 10}, svg).textContent =
          String(Math.round(t * 1000) / 1000);
    }
    el('text', {x: (L + W - R) / 2, y: H - 4, 'text-anchor': 'middle', 'font-size': 11}, svg).textContent = unit;
    el('text', {x: 12, y: T + (H - T - B) / 2, 'font-size': 11, transform: 'rotate(-90 12 ' + (T + (H - T - B) / 2) + ')',
                'text-anchor': 'middle'}, svg).textContent = 'MiB in use';
    // Stacked areas, step after each sample.
    const base = s.map(() => 0);
    for (let k = 1; k <= nc; ++k) {
      if (!s.some(p => p[k] > 0)) continue;
      let up = '', down = '';
      for (let i = 0; i < s.length; ++i) {
        const xa = x(s[i][0]), xb = x(i + 1 < s.length ? s[i + 1][0] : t1);
        const lo = base[i], hi = lo + s[i][k];
        up += (i ? 'L' : 'M') + xa.toFixed(1) + ',' + y(hi).toFixed(1) + 'L' + xb.toFixed(1) + ',' + y(hi).toFixed(1);
        down = 'L' + xb.toFixed(1) + ',' + y(lo).toFixed(1) + 'L' + xa.toFixed(1) + ',' + y(lo).toFixed(1) + down;
        base[i] = hi;
      }
      el('path', {d: up + down + 'Z', fill: data.colors[k - 1], 'fill-opacity': 0.85, class: 'area',
                  'data-category': data.categories[k - 1]}, svg);
    }
    // The live-set bound's schedule, and its peak.
    let d = '';
    for (let i = 0; i < s.length; ++i) {
      const xa = x(s[i][0]), xb = x(i + 1 < s.length ? s[i + 1][0] : t1), yy = y(s[i][nc + 1]);
      d += (i ? 'L' : 'M') + xa.toFixed(1) + ',' + yy.toFixed(1) + 'L' + xb.toFixed(1) + ',' + yy.toFixed(1);
    }
    if (d) el('path', {d: d, fill: 'none', stroke: '#000', 'stroke-width': 1.2, class: 'bound'}, svg);
    const yb = y(c.lower_bound_bytes);
    el('line', {x1: L, x2: W - R, y1: yb, y2: yb, stroke: '#000', 'stroke-dasharray': '5 4', class: 'bound-peak'}, svg);
    el('text', {x: W - R - 4, y: yb - 4, 'text-anchor': 'end', 'font-size': 10}, svg).textContent =
        'live-set bound ' + fmt(c.lower_bound_bytes);
    // The peak, and what was alive then (the detail table rendered beside the chart).
    const detail = box.querySelector('.peak-detail');
    const peak = el('circle', {cx: x(c.peak_step), cy: y(c.peak_bytes), r: 6, fill: '#fff', stroke: '#b00',
                               'stroke-width': 2, class: 'peak'}, svg);
    el('title', {}, peak).textContent = 'peak ' + fmt(c.peak_bytes) + ': hover for what was alive';
    peak.addEventListener('mouseenter', () => { detail.hidden = false; });
    peak.addEventListener('mouseleave', () => { detail.hidden = true; });
    // Hover anywhere: the bytes by category at that moment.
    const tip = document.createElement('div');
    tip.className = 'tip';
    box.appendChild(tip);
    const rule = el('line', {y1: T, y2: H - B, stroke: '#555', 'stroke-width': 0.5, visibility: 'hidden'}, svg);
    svg.addEventListener('mousemove', ev => {
      const r = svg.getBoundingClientRect();
      const px = ev.clientX - r.left;
      const t = t0 + (px - L) / (W - L - R) * (t1 - t0);
      let lo = 0, hi = s.length - 1;
      while (lo < hi) {  // the last sample at or before t
        const mid = (lo + hi + 1) >> 1;
        if (s[mid][0] <= t) lo = mid; else hi = mid - 1;
      }
      const p = s[lo];
      if (!p) return;
      let rows = '<b>' + unit + ' ' + p[0].toFixed(2) + '</b>', tot = 0;
      for (let k = nc; k >= 1; --k) {
        if (p[k] === 0) continue;
        tot += p[k];
        rows += '<br><span class="sw" style="background:' + data.colors[k - 1] + '"></span>' +
                data.categories[k - 1] + ' ' + fmt(p[k]);
      }
      rows += '<br>in use ' + fmt(tot) + '<br>bound schedule ' + fmt(p[nc + 1]);
      tip.innerHTML = rows;
      tip.style.display = 'block';
      tip.style.left = Math.min(px + 12, W - 180) + 'px';
      tip.style.top = '8px';
      rule.setAttribute('x1', px);
      rule.setAttribute('x2', px);
      rule.setAttribute('visibility', 'visible');
    });
    svg.addEventListener('mouseleave', () => { tip.style.display = 'none'; rule.setAttribute('visibility', 'hidden'); });
    return svg;
  }

  let charts = 0;
  document.querySelectorAll('div.chart').forEach(box => {
    const w = data.workloads[Number(box.dataset.w)];
    draw(box, w.contenders[Number(box.dataset.c)], w.unit);
    ++charts;
  });
  document.body.dataset.charts = String(charts);
  document.body.dataset.rendered = 'yes';

  // #selftest (the headless test): hover every peak and the middle of every chart.
  if (location.hash === '#selftest') {
    const result = [];
    document.querySelectorAll('div.chart').forEach(box => {
      const svg = box.querySelector('svg'), peak = box.querySelector('circle.peak');
      const detail = box.querySelector('.peak-detail'), tip = box.querySelector('.tip');
      peak.dispatchEvent(new MouseEvent('mouseenter'));
      const peakShown = !detail.hidden && detail.textContent.length > 0;
      const peakRows = detail.querySelectorAll('tr').length;
      peak.dispatchEvent(new MouseEvent('mouseleave'));
      const r = svg.getBoundingClientRect();
      svg.dispatchEvent(new MouseEvent('mousemove', {clientX: r.left + r.width / 2, clientY: r.top + r.height / 2}));
      result.push({name: box.dataset.name, areas: svg.querySelectorAll('path.area').length,
                   bound: svg.querySelectorAll('path.bound').length, peak_shown: peakShown, peak_rows: peakRows,
                   tip: tip.textContent});
    });
    document.getElementById('selftest').textContent = JSON.stringify(result);
  }
})();
)js";

}  // namespace

std::vector<std::string> verdict(const WorkloadData& w) {
  std::vector<std::string> v;
  const double peer = peer_ms(w);
  const ContenderData* fastest = nullptr;
  const ContenderData *nearest = nullptr, *farthest = nullptr, *least = nullptr, *most = nullptr;
  const ContenderData* cheapest = nullptr;
  for (const ContenderData& c : w.contenders) {
    if (c.median_ms > 0 && (fastest == nullptr || c.median_ms < fastest->median_ms)) fastest = &c;
    if (!c.has_memory) continue;
    const double r = bound_ratio(c);
    if (std::isfinite(r)) {
      if (nearest == nullptr || r < bound_ratio(*nearest)) nearest = &c;
      if (farthest == nullptr || r > bound_ratio(*farthest)) farthest = &c;
    }
    const double share = c.held_dead.held_dead_share();
    if (least == nullptr || share < least->held_dead.held_dead_share()) least = &c;
    if (most == nullptr || share > most->held_dead.held_dead_share()) most = &c;
    if (c.lines_of_code > 0 && (cheapest == nullptr || c.lines_of_code < cheapest->lines_of_code)) cheapest = &c;
  }
  if (fastest != nullptr) {
    v.push_back(absl::StrFormat("Fastest: %s, %.3f ms per %s%s.", fastest->name, fastest->median_ms, w.unit,
                                peer > 0 ? absl::StrFormat(" (%.2f× the peer)", fastest->median_ms / peer) : ""));
  }
  if (nearest != nullptr) {
    v.push_back(absl::StrFormat("Nearest the live-set bound (%s MiB): %s, peak %s MiB = %.2f× the bound; "
                                "farthest: %s at %.2f×.",
                                mib(nearest->lower_bound_bytes), nearest->name, mib(nearest->peak_bytes),
                                bound_ratio(*nearest), farthest->name, bound_ratio(*farthest)));
  }
  if (least != nullptr) {
    std::string s = absl::StrFormat("Least memory held past its last use: %s (%.1f%% of its byte-time)",
                                    least->name, 100 * least->held_dead.held_dead_share());
    if (most != least) {
      absl::StrAppendFormat(&s, "; most: %s (%.1f%%)", most->name, 100 * most->held_dead.held_dead_share());
      const std::vector<SiteHeld>& sites = most->held_dead.sites;
      if (!sites.empty() && sites.front().held_dead_byte_steps > 0 && most->held_dead.held_dead_byte_steps > 0) {
        absl::StrAppendFormat(&s, ", %.0f%% of it made at %s",
                              100 * sites.front().held_dead_byte_steps / most->held_dead.held_dead_byte_steps,
                              sites.front().frame);
      }
    }
    v.push_back(s + ".");
  }
  if (cheapest != nullptr) {
    v.push_back(absl::StrFormat("Cheapest to write: %s, %d lines of idiom.", cheapest->name, cheapest->lines_of_code));
  }
  std::vector<std::string> leaks;
  for (const ContenderData& c : w.contenders) {
    if (c.has_memory && c.leaked_bytes != 0) {
      leaks.push_back(absl::StrFormat("%s %d bytes in %d tensors", c.name, c.leaked_bytes, c.leaked_tensors));
    }
  }
  if (least != nullptr) {
    v.push_back(leaks.empty() ? std::string("No contender leaked.")
                              : absl::StrCat("Leaked: ", absl::StrJoin(leaks, "; "), "."));
  }
  return v;
}

std::string render_html(std::string_view title, const std::vector<WorkloadData>& workloads) {
  std::string o = absl::StrCat("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>",
                               html_escape(title), "</title><style>", kStyle, "</style></head><body>\n<h1>",
                               html_escape(title), "</h1>\n<pre id=\"errors\"></pre>\n<p>Timelines: bytes in use "
                               "stacked by category; the black line is the live-set bound's schedule (every "
                               "allocation freed right after its last use), the dashed line its peak. Hover a "
                               "chart for the bytes at that moment, its red circle for what was alive at the "
                               "peak.</p>\n<p>");
  for (const CategoryStyle& cs : kStack) {
    absl::StrAppend(&o, "<span class=\"sw\" style=\"background:", cs.color, "\"></span>",
                    category_name(cs.category), " &nbsp; ");
  }
  o += "</p>\n";
  std::string json = "{\"categories\": [";
  for (size_t k = 0; k < std::size(kStack); ++k) {
    absl::StrAppend(&json, k ? ", " : "", json_string(category_name(kStack[k].category)));
  }
  json += "], \"colors\": [";
  for (size_t k = 0; k < std::size(kStack); ++k) absl::StrAppend(&json, k ? ", " : "", json_string(kStack[k].color));
  json += "], \"workloads\": [";
  for (size_t wi = 0; wi < workloads.size(); ++wi) {
    const WorkloadData& w = workloads[wi];
    absl::StrAppend(&o, "<section class=\"workload\"><h2>", html_escape(w.workload), " on ", html_escape(w.backend),
                    "</h2><p>", html_escape(w.description), "; ", w.steps, " ", html_escape(w.unit),
                    "s per run.</p>\n<ul class=\"verdict\">");
    for (const std::string& s : verdict(w)) absl::StrAppend(&o, "<li>", html_escape(s), "</li>");
    o += "</ul>\n";
    summary_table(o, w);
    absl::StrAppend(&json, wi ? ", " : "", "{\"workload\": ", json_string(w.workload), ", \"unit\": ",
                    json_string(w.unit), ", \"contenders\": [");
    for (size_t ci = 0; ci < w.contenders.size(); ++ci) {
      const ContenderData& c = w.contenders[ci];
      absl::StrAppend(&json, ci ? ", " : "", contender_json(c));
      if (!c.has_memory) continue;
      absl::StrAppend(&o, "<h3>", html_escape(c.name), "</h3>\n<div class=\"chart\" data-w=\"", wi, "\" data-c=\"",
                      ci, "\" data-name=\"", html_escape(absl::StrCat(w.workload, "/", w.backend, "/", c.name)),
                      "\">");
      peak_detail(o, c);
      o += "</div>\n";
      held_dead_table(o, c);
      o += "\n";
    }
    json += "]}";
    o += "</section>\n";
  }
  json += "]}";
  absl::StrAppend(&o, "<pre id=\"selftest\"></pre>\n<script id=\"report-data\" type=\"application/json\">", json,
                  "</script>\n<script>", kScript, "</script>\n</body></html>\n");
  return o;
}

}  // namespace custody::report
