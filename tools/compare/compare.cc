// Copyright 2026 The custody Authors.
//
// tools/compare — the main job: run each workload under all five ownership
// policies plus the same workload in plain libtorch, in one process, and show
// the price of each policy side by side.
//
//   ./bazelw run //tools/compare                          # every workload, selected backend
//   ./bazelw run //tools/compare -- --quick               # a sub-minute run
//   ./bazelw run //tools/compare -- --workloads=mlp --steps=50 --out=/tmp/cmp
//   ./bazelw run //tools/compare -- --all_backends        # onednn and aten
//   ./bazelw run --//backends:backend=aten //tools/compare
//
// Per workload it prints a table (columns explained in docs/reference.md, "The
// compare tool"), writes every number to <out>/compare.json, and draws
// <out>/<workload>_<backend>_memory.png (gnuplot): bytes in use over the
// steps, one line per contender, and <out>/report.html (custody/report/html.h):
// the tables, a verdict per workload, and per contender a timeline by
// category with the live-set bound, the sites holding memory past its last
// use with their stacks, and the leaks. <out> defaults to compare-out/ in the
// workspace under `bazel run`, else in the current directory.

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/error.h"
#include "core/threads.h"
#include "custody/report/html.h"
#include "custody/report/json.h"
#include "custody/report/output.h"
#include "tools/compare/compare.h"
#include "tools/compare/registry.h"
#include "tools/flags/flags.h"

namespace custody::compare {
namespace {

struct LinesOfCode {
  const char* workload;
  const char* name;  // a policy with a header of its own, or a body (tools/compare/BUILD)
  int lines;
};
constexpr LinesOfCode kLinesOfCode[] = {
#include "tools/compare/lines_of_code.inc"
};

int lines_of(const std::string& workload, const std::string& name) {
  for (const LinesOfCode& l : kLinesOfCode) {
    if (workload == l.workload && name == l.name) return l.lines;
  }
  return 0;
}

// The lines of `policy`'s idiom in `workload`: its own header's, else those of
// the body it runs (tools/build_defs/workloads.bzl): the collecting body for a
// policy that collects, the handle body for any other. 0 for the libtorch peer.
int lines_of_code(const std::string& workload, const Measurement& m) {
  if (m.policy.empty()) return 0;
  if (const int own = lines_of(workload, m.policy); own > 0) return own;
  return lines_of(workload, m.collects ? "collecting" : "handle");
}

}  // namespace
}  // namespace custody::compare

// The command line (Note [Flags], tools/flags/flags.h; docs/reference.md lists them, checked by
// //tools/flags:readme_options_test).
// --workloads' default is the registry's list (registry.h), which the static initializers have
// filled before main: Abseil computes a flag's default at its first use.
ABSL_FLAG(std::vector<std::string>, workloads, custody::compare::default_workloads(),
          "workloads to run, comma-separated: mlp, llama, ops, serve (and a custody_workload binary's own, "
          "its default)");
ABSL_FLAG(std::vector<std::string>, contenders, {},
          "only these contenders, comma-separated: a policy, gc:collect_every_step, gc:trigger_8MiB, "
          "gc:no_collection, libtorch (--list_contenders prints them); empty: all");
ABSL_FLAG(bool, list_contenders, false, "print each workload's contenders on each backend, and exit");
ABSL_FLAG(int64_t, steps, 0, "steps per run; 0: each workload's own, fewer with --quick");
ABSL_FLAG(bool, quick, false, "a sub-minute run");
ABSL_FLAG(bool, all_backends, false, "every backend, not only the one selected at build time");
ABSL_FLAG(std::string, out, "", "where compare.json and the plots go; empty: compare-out/ in the workspace");
ABSL_FLAG(bool, sites, true,
          "record where each allocation was made in the memory pass (the held-dead report by site); "
          "false: the memory pass without stacks");
ABSL_FLAG(bool, snapshots, false,
          "also write each custody contender's memory pass as PyTorch's memory snapshot, "
          "<out>/<workload>_<backend>_<contender>.pickle (custody/report/snapshot.h), for "
          "torch/cuda/_memory_viz.py");
ABSL_FLAG(std::string, llama_checkpoint, "",
          "a llama2.c checkpoint for the llama workload; empty: seeded random weights");
ABSL_FLAG(int64_t, ops_size, 0,
          "ops: rows and columns of its state and weight (even); 0: 1024. Small sizes with many "
          "--ops_tiny_ops make a round of handle and ownership costs");
ABSL_FLAG(int64_t, ops_tiny_ops, 0, "ops: one-element ops per round; 0: 64");

namespace custody::compare {
namespace {

Options parse(int argc, char** argv) {
  flags::parse(argc, argv,
               "compare: the workloads under every ownership policy and libtorch, side by side: time, "
               "peak memory against the live-set bound, leaks (README, \"The main job\")");
  Options o;
  // The workloads registered (registry.h); a custody_workload binary's own are its default.
  const std::vector<std::string> own = own_workloads();
  o.workloads_given = flags::specified("workloads");
  o.workloads = o.workloads_given || own.empty()
                    ? flags::checked_list("workloads", absl::GetFlag(FLAGS_workloads), registered_workloads())
                    : own;
  if (flags::specified("contenders")) {
    // The names are checked once the plans say which contenders there are (run()).
    o.contenders = flags::checked_list("contenders", absl::GetFlag(FLAGS_contenders), {});
  }
  o.list_contenders = absl::GetFlag(FLAGS_list_contenders);
  if (flags::specified("steps")) o.steps = flags::at_least("steps", absl::GetFlag(FLAGS_steps), 1);
  o.quick = absl::GetFlag(FLAGS_quick);
  o.all_backends = absl::GetFlag(FLAGS_all_backends);
  o.out_dir = absl::GetFlag(FLAGS_out);
  if (flags::specified("out") && o.out_dir.empty()) flags::usage_error("--out is empty: name a directory");
  o.llama_checkpoint = absl::GetFlag(FLAGS_llama_checkpoint);
  o.sites = absl::GetFlag(FLAGS_sites);
  o.snapshots = absl::GetFlag(FLAGS_snapshots);
  if (flags::specified("ops_size")) {
    o.ops_size = flags::at_least("ops_size", absl::GetFlag(FLAGS_ops_size), 2);
    if (o.ops_size % 2 != 0) flags::usage_error("--ops_size must be even (a round views half the rows)");
  }
  if (flags::specified("ops_tiny_ops")) {
    o.ops_tiny_ops = flags::at_least("ops_tiny_ops", absl::GetFlag(FLAGS_ops_tiny_ops), 2);
  }
  if (o.out_dir.empty()) {
    const char* ws = std::getenv("BUILD_WORKSPACE_DIRECTORY");
    o.out_dir = ws != nullptr ? std::string(ws) + "/compare-out" : "compare-out";
  }
  return o;
}

std::string mib(int64_t bytes) { return absl::StrFormat("%.2f", static_cast<double>(bytes) / (1 << 20)); }

using report::Json;
using report::json_number;
using report::make_dirs;
using report::rename_into_place;
using report::temporary_beside;
using report::write_file;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

struct WorkloadResult {
  std::string backend;
  WorkloadPlan plan;
  std::vector<Measurement> runs;
  std::string plot;  // PNG path, empty if none was drawn
  double peer_median_ms() const {
    for (const Measurement& m : runs) {
      if (m.policy.empty()) return m.median_ms;
    }
    return 0;
  }
};

// "serve (2 workers)": the workload and, when it runs several ways, which.
std::string title(const WorkloadPlan& p) {
  return p.variant.empty() ? p.name : absl::StrCat(p.name, " (", p.variant, ")");
}

// The contender column: 22 wide, or as wide as the longest contender and a space.
size_t contender_width(const WorkloadResult& r) {
  size_t w = 22;
  for (const Measurement& m : r.runs) w = std::max(w, m.contender.size() + 1);
  return w;
}
std::string padded(const std::string& name, size_t width) {
  return name + std::string(width > name.size() ? width - name.size() : 0, ' ');
}

// What the runners measured themselves (a server's requests/s and latency),
// with the ratio of the peer's throughput figure and the frees made on
// another thread than their allocation's.
void print_figures(const WorkloadResult& r) {
  // A runner's figure by name, 0 when it has none.
  const auto figure = [](const Measurement& m, std::string_view name) {
    for (const workloads::Figure& f : m.figures) {
      if (f.name == name) return f.value;
    }
    return 0.0;
  };
  const Measurement* first = nullptr;
  double peer_throughput = 0;
  for (const Measurement& m : r.runs) {
    if (!m.figures.empty() && first == nullptr) first = &m;
    if (m.policy.empty()) peer_throughput = figure(m, "requests_per_s");
  }
  if (first == nullptr) return;
  const size_t width = contender_width(r);
  std::cout << padded("contender", width);
  for (const workloads::Figure& f : first->figures) std::cout << absl::StrFormat(" %14s", f.name);
  std::cout << absl::StrFormat(" %14s %14s\n", "x_torch", "xthread_frees");
  for (const Measurement& m : r.runs) {
    std::cout << padded(m.contender, width);
    for (const workloads::Figure& f : m.figures) std::cout << absl::StrFormat(" %14.3f", f.value);
    // x_torch: libtorch's time per request over this one's (as the table above: < 1 is faster).
    const double throughput = figure(m, "requests_per_s");
    std::cout << absl::StrFormat(" %14s %14s\n",
                                 throughput > 0 && peer_throughput > 0
                                     ? absl::StrFormat("%.2f", peer_throughput / throughput)
                                     : "-",
                                 m.has_memory ? absl::StrCat(m.held_dead.cross_thread_frees) : "-");
  }
}

void print_table(const WorkloadResult& r) {
  std::cout << "\n== " << title(r.plan) << " on " << r.backend << ": " << r.plan.description << "; "
            << r.plan.steps << " " << r.plan.unit << "s per run ==\n";
  const size_t width = contender_width(r);
  std::cout << absl::StrFormat("%s %9s %9s %8s %9s %9s %7s %6s %7s %9s %6s %8s %5s\n", padded("contender", width),
                               "median_ms", "min_ms", "x_torch", "peak_MiB", "bound_MiB", "x_bound",
                               "dead%", "live", "leaked_B", "colls", "finalzd", "LoC");
  const double peer = r.peer_median_ms();
  for (const Measurement& m : r.runs) {
    const std::string ratio = peer > 0 ? absl::StrFormat("%.2f", m.median_ms / peer) : "-";
    if (!m.has_memory) {
      std::cout << absl::StrFormat("%s %9.3f %9.3f %8s %9s %9s %7s %6s %7s %9s %6s %8s %5s\n",
                                   padded(m.contender, width), m.median_ms, m.min_ms, ratio, "-", "-", "-", "-", "-",
                                   "-", "-", "-", "-");
      continue;
    }
    const std::string bound_ratio =
        m.lower_bound_bytes > 0
            ? absl::StrFormat("%.2f", static_cast<double>(m.peak_bytes) / static_cast<double>(m.lower_bound_bytes))
            : "-";
    const bool collects = m.collects;
    std::cout << absl::StrFormat(
        "%s %9.3f %9.3f %8s %9s %9s %7s %6.1f %7d %9d %6s %8s %5s\n", padded(m.contender, width), m.median_ms,
        m.min_ms, ratio, mib(m.peak_bytes), mib(m.lower_bound_bytes), bound_ratio,
        100 * m.held_dead.held_dead_share(), m.live_tensors, m.leaked_bytes,
        collects ? absl::StrCat(m.collections) : "-", collects ? absl::StrCat(m.finalized) : "-",
        lines_of_code(r.plan.name, m) > 0 ? absl::StrCat(lines_of_code(r.plan.name, m)) : "-");
  }
  for (const Measurement& m : r.runs) {
    if (m.has_memory && m.held_dead.out_of_order_allocs > 0) {
      std::cerr << "warning: " << m.contender << " on " << r.backend << ": " << m.held_dead.out_of_order_allocs
                << " allocations recorded before the free of the block they reuse; the backend records "
                   "frees late, and this row's memory figures are not exact\n";
    }
  }
  print_figures(r);
  std::cout.flush();
}

// A file name's part for a workload and its variant ("2 workers" -> "mlp_2workers").
std::string file_stem(const WorkloadResult& r) {
  std::string variant;
  for (char c : r.plan.variant) {
    if (c != ' ') variant += c;
  }
  return absl::StrCat(r.plan.name, variant.empty() ? "" : "_", variant);
}

// --snapshots: <out>/<workload>_<backend>_<contender>.pickle, each whole or not at all.
void write_snapshots(const Options& o, const WorkloadResult& r) {
  for (const Measurement& m : r.runs) {
    if (m.snapshot.empty()) continue;
    std::string name = m.contender;
    for (char& c : name) {
      if (c == ':') c = '_';
    }
    write_file(absl::StrCat(o.out_dir, "/", file_stem(r), "_", r.backend, "_", name, ".pickle"), m.snapshot);
  }
}

// Writes the timeline data and a gnuplot script; runs gnuplot. Returns the PNG path or "".
std::string plot(const Options& o, const WorkloadResult& r) {
  const std::string stem = absl::StrCat(o.out_dir, "/", file_stem(r), "_", r.backend, "_memory");
  std::vector<std::string> series;
  int64_t bound = 0;
  for (const Measurement& m : r.runs) {
    if (!m.has_memory) continue;
    bound = std::max(bound, m.lower_bound_bytes);
    std::string name = m.contender;
    for (char& c : name) {
      if (c == ':') c = '_';
    }
    const std::string dat = stem + "_" + name + ".dat";
    std::string f = absl::StrCat("# step bytes_in_use_MiB (", m.contender, ")\n");
    int64_t last = -1;
    for (const TimelinePoint& p : m.timeline) {
      if (p.bytes == last) continue;
      absl::StrAppendFormat(&f, "%.4f %.4f\n", p.step, static_cast<double>(p.bytes) / (1 << 20));
      last = p.bytes;
    }
    write_file(dat, f);  // Note [Results never silently lost]
    series.push_back(absl::StrFormat("'%s' using 1:2 with steps lw 2 title '%s'", dat, m.contender));
  }
  if (series.empty()) return "";
  const std::string png = stem + ".png";
  const std::string png_tmp = temporary_beside(png);  // gnuplot writes it; renamed into place below
  const std::string script = stem + ".gp";
  {
    std::ostringstream g;
    g << "set terminal png size 1200,700 noenhanced\n"
      << "set output '" << png_tmp << "'\n"
      << "set title '" << title(r.plan) << " on " << r.backend << ": bytes in use (custody backend memory)'\n"
      << "set xlabel '" << r.plan.unit << "'\nset ylabel 'MiB in use'\nset key outside right\nset grid\n"
      << "set logscale y 2\n"
      << absl::StrFormat("set yrange [%g:*]\n", std::max(1e-3, static_cast<double>(bound) / 4 / (1 << 20)))
      << "plot " << absl::StrJoin(series, ", \\\n     ") << "\n";
    write_file(script, g.str());
  }
  const std::string cmd = "gnuplot '" + script + "' 2>&1";
  if (std::system(cmd.c_str()) != 0) {
    ::unlink(png_tmp.c_str());
    std::cerr << "compare: gnuplot failed or is missing (apt install gnuplot-nox); no plot for "
              << r.plan.name << " on " << r.backend << "\n";
    return "";
  }
  rename_into_place(png_tmp, png);
  return png;
}

// One figure per memory category, by its name.
template <typename T>
Json by_category(const std::array<T, kNumMemoryCategories>& values) {
  Json j = Json::object();
  for (int k = 0; k < kNumMemoryCategories; ++k) {
    const T v = values[static_cast<size_t>(k)];
    const char* name = category_name(static_cast<MemoryCategory>(k));
    if constexpr (std::is_floating_point_v<T>) {
      j[name] = json_number(v);  // byte-steps
    } else {
      j[name] = v;  // bytes, exact
    }
  }
  return j;
}

// A contender's memory held past its last use, by site and category (custody/report/held_dead.h).
Json held_dead_json(const report::HeldDead& h) {
  Json sites = Json::array();
  for (const report::SiteHeld& s : h.sites) {
    Json site;
    site["frame"] = s.frame;
    site["pc"] = absl::StrFormat("%p", s.pc);
    site["allocations"] = s.allocations;
    site["bytes"] = s.bytes;
    site["byte_steps"] = json_number(s.byte_steps);
    site["held_dead_byte_steps"] = json_number(s.held_dead_byte_steps);
    site["dead_at_peak_bytes"] = s.dead_at_peak_bytes;
    site["alive_at_peak_bytes"] = s.alive_at_peak_bytes;
    site["awaiting_collection_byte_steps"] = json_number(s.awaiting_collection_byte_steps);
    site["category"] = category_name(s.category);
    if (!s.saved_by.empty()) site["saved_by"] = s.saved_by;
    site["ops"] = s.ops;
    if (!s.held_by.empty()) site["held_by"] = s.held_by;
    site["unfreed_bytes"] = s.unfreed_bytes;
    site["stack"] = s.stack;
    sites.push_back(std::move(site));
  }
  Json j;
  j["share"] = json_number(h.held_dead_share());
  j["byte_steps"] = json_number(h.byte_steps);
  j["bound_byte_steps"] = json_number(h.bound_byte_steps);
  j["held_dead_byte_steps"] = json_number(h.held_dead_byte_steps);
  j["peak_bytes"] = h.peak_bytes;
  j["peak_step"] = json_number(h.peak_step);
  j["dead_at_peak_bytes"] = h.dead_at_peak_bytes;
  j["collections"] = h.collections;
  j["awaiting_collection_byte_steps"] = json_number(h.awaiting_collection_byte_steps);
  j["cross_thread_frees"] = h.cross_thread_frees;
  j["out_of_order_allocs"] = h.out_of_order_allocs;
  j["peak_by_category"] = by_category(h.peak_by_category);
  j["dead_at_peak_by_category"] = by_category(h.dead_at_peak_by_category);
  j["held_dead_by_category"] = by_category(h.held_dead_by_category);
  j["sites"] = std::move(sites);
  Json held_by = Json::array();
  for (const report::HeldByShare& b : h.held_by) {
    Json k;
    k["holder"] = b.holder;
    if (!b.released_at.empty()) k["released_at"] = b.released_at;
    k["allocations"] = b.allocations;
    k["held_dead_byte_steps"] = json_number(b.held_dead_byte_steps);
    k["share"] = json_number(h.held_dead_byte_steps > 0 ? b.held_dead_byte_steps / h.held_dead_byte_steps : 0.0);
    held_by.push_back(std::move(k));
  }
  j["held_by"] = std::move(held_by);
  return j;
}

// One contender of a workload: its times, and for a custody contender its memory figures.
Json contender_json(const WorkloadResult& r, const Measurement& m) {
  const double peer = r.peer_median_ms();
  Json c;
  c["name"] = m.contender;
  c["policy"] = m.policy.empty() ? Json(nullptr) : Json(m.policy);
  c["median_ms"] = json_number(m.median_ms);
  c["min_ms"] = json_number(m.min_ms);
  c["ratio_to_libtorch"] = json_number(peer > 0 ? m.median_ms / peer : kNaN);
  c["metric"] = json_number(m.metric);
  if (!m.figures.empty()) {
    Json figures = Json::object();
    for (const workloads::Figure& f : m.figures) figures[f.name] = json_number(f.value);
    c["figures"] = std::move(figures);
  }
  if (m.has_memory) {
    c["peak_bytes"] = m.peak_bytes;
    c["lower_bound_bytes"] = m.lower_bound_bytes;
    c["peak_to_lower_bound"] = json_number(
        m.lower_bound_bytes > 0 ? static_cast<double>(m.peak_bytes) / static_cast<double>(m.lower_bound_bytes)
                                : kNaN);
    c["live_tensors"] = m.live_tensors;
    c["leaked_bytes"] = m.leaked_bytes;
    c["leaked_tensors"] = m.leaked_tensors;
    c["collections"] = m.collections;
    c["finalized"] = m.finalized;
    c["lines_of_code"] = lines_of_code(r.plan.name, m);
    c["memory_pass_ms"] = json_number(m.memory_pass_ms);
    c["memory_record_ms"] = json_number(m.memory_record_ms);
    c["step_peak_bytes"] = m.step_peak_bytes;
    c["held_dead"] = held_dead_json(m.held_dead);
  }
  Json step_ms = Json::array();
  for (double t : m.step_ms) step_ms.push_back(json_number(t));
  c["step_ms"] = std::move(step_ms);
  return c;
}

// <out>/compare.json: every number of the run (docs/reference.md, "The compare tool").
std::string write_json(const Options& o, const std::vector<WorkloadResult>& results) {
  Json all = Json::array();
  for (const WorkloadResult& r : results) {
    Json shapes = Json::object();
    for (const auto& [name, value] : r.plan.shapes) shapes[name] = value;
    Json contenders = Json::array();
    for (const Measurement& m : r.runs) contenders.push_back(contender_json(r, m));
    Json w;
    w["workload"] = r.plan.name;
    w["variant"] = r.plan.variant;
    w["backend"] = r.backend;
    w["unit"] = r.plan.unit;
    w["description"] = r.plan.description;
    w["steps"] = r.plan.steps;
    w["plot"] = r.plot;
    w["shapes"] = std::move(shapes);
    w["contenders"] = std::move(contenders);
    all.push_back(std::move(w));
  }
  Json f;
  f["threads"] = custody::num_threads();
  f["quick"] = o.quick;
  f["sites"] = o.sites;
  f["snapshots"] = o.snapshots;
  f["results"] = std::move(all);
  const std::string path = o.out_dir + "/compare.json";
  write_file(path, report::json_text(f, /*indent=*/2) + "\n");  // Note [Results never silently lost]
  return path;
}

// compare-out/report.html (custody/report/html.h): the tables, timelines by category, held-dead sites.
std::string write_report(const Options& o, const std::vector<WorkloadResult>& results) {
  std::vector<report::WorkloadData> data;
  for (const WorkloadResult& r : results) {
    report::WorkloadData w{title(r.plan), r.backend, r.plan.unit, r.plan.description, r.plan.steps, {}};
    for (const Measurement& m : r.runs) {
      report::ContenderData c;
      c.name = m.contender;
      c.policy = m.policy;
      c.median_ms = m.median_ms;
      c.min_ms = m.min_ms;
      c.lines_of_code = m.has_memory ? lines_of_code(r.plan.name, m) : 0;
      c.has_memory = m.has_memory;
      c.peak_bytes = m.peak_bytes;
      c.lower_bound_bytes = m.lower_bound_bytes;
      c.leaked_bytes = m.leaked_bytes;
      c.leaked_tensors = m.leaked_tensors;
      c.held_dead = m.held_dead;
      for (const workloads::Figure& f : m.figures) c.figures.emplace_back(f.name, f.value);
      w.contenders.push_back(std::move(c));
    }
    data.push_back(std::move(w));
  }
  const std::string path = o.out_dir + "/report.html";
  write_file(path, report::render_html("custody compare: the ownership policies side by side", data));
  return path;
}

int run(int argc, char** argv) {
  const Options o = parse(argc, argv);
  const std::vector<BackendRun> backends = backends_to_run(o);
  std::vector<std::pair<std::string, std::vector<WorkloadPlan>>> planned;
  for (const BackendRun& b : backends) planned.emplace_back(b.name, b.plans(o));
  // Every name --contenders gives must be a contender somewhere: a typo must not measure nothing.
  std::vector<std::string> known;
  for (const auto& [backend, plans] : planned) {
    for (const WorkloadPlan& plan : plans) {
      for (const Contender& c : plan.contenders) {
        if (std::find(known.begin(), known.end(), c.name) == known.end()) known.push_back(c.name);
      }
    }
  }
  if (!o.contenders.empty()) flags::checked_list("contenders", o.contenders, known);
  if (o.list_contenders) {
    for (const auto& [backend, plans] : planned) {
      for (const WorkloadPlan& plan : plans) {
        std::vector<std::string> names;
        for (const Contender& c : plan.contenders) names.push_back(c.name);
        std::cout << backend << "/" << title(plan) << ": " << absl::StrJoin(names, " ") << "\n";
      }
    }
    return 0;
  }
  make_dirs(o.out_dir);  // before measuring anything: Note [Results never silently lost]
  std::cerr << "compare: " << custody::num_threads() << " threads; results in " << o.out_dir << "\n";
  std::vector<WorkloadResult> results;
  for (size_t bi = 0; bi < backends.size(); ++bi) {
    const BackendRun& b = backends[bi];
    for (WorkloadPlan& plan : planned[bi].second) {
      WorkloadResult r{b.name, plan, {}, ""};
      for (const Contender& c : plan.contenders) {
        if (!o.contenders.empty() &&
            std::find(o.contenders.begin(), o.contenders.end(), c.name) == o.contenders.end()) {
          continue;
        }
        Measurement m = b.measure(c, plan.steps, o.sites, o.snapshots);
        std::cerr << absl::StrFormat("  [%s/%s] %-22s median %8.3f ms/%s%s\n", b.name, title(plan), c.name,
                                     m.median_ms, plan.unit,
                                     m.has_memory ? absl::StrFormat(", peak %s MiB", mib(m.peak_bytes)) : "");
        r.runs.push_back(std::move(m));
      }
      print_table(r);
      results.push_back(std::move(r));
    }
  }
  // Every measurement done: now the files, each whole or not at all.
  for (WorkloadResult& r : results) r.plot = plot(o, r);
  for (const WorkloadResult& r : results) write_snapshots(o, r);
  std::cout << "\nwrote " << write_json(o, results) << ", " << write_report(o, results);
  for (const WorkloadResult& r : results) {
    if (!r.plot.empty()) std::cout << ", " << r.plot;
  }
  std::cout << "\n";
  return 0;
}

}  // namespace
}  // namespace custody::compare

int main(int argc, char** argv) {
  try {
    return custody::compare::run(argc, argv);
  } catch (const custody::report::OutputError& e) {
    std::cerr << "compare: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << e.what() << "\n";
    return 1;
  }
}
