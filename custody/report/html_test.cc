// Copyright 2026 The custody Authors.
//
// report.html from a workload written by hand (custody/report/html.h): the
// page carries report.css and report.js as they are in the tree, its embedded
// data is the model's chart_data (model.h) and survives a name that would end
// a <script> element, its tables escape what they show, and the verdict
// (verdict.h) names the contenders the numbers say. headless.py, through
// compare_test and report_example_test, checks that the page renders.

#include "custody/report/html.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/match.h"
#include "custody/report/json.h"
#include "custody/report/model.h"
#include "custody/report/page_assets.h"
#include "custody/report/verdict.h"
#include "gtest/gtest.h"

namespace {

using custody::MemoryCategory;
using custody::report::ContenderData;
using custody::report::Json;
using custody::report::WorkloadData;

ContenderData policy(std::string name, double median_ms, int64_t peak_bytes, int lines) {
  ContenderData c;
  c.name = name;
  c.policy = name;
  c.median_ms = c.min_ms = median_ms;
  c.lines_of_code = lines;
  c.has_memory = true;
  c.peak_bytes = c.held_dead.peak_bytes = peak_bytes;
  c.lower_bound_bytes = 1 << 20;
  c.held_dead.byte_steps = 10 * static_cast<double>(peak_bytes);
  c.held_dead.held_dead_byte_steps = static_cast<double>(peak_bytes);
  c.held_dead.peak_step = 1.5;
  for (int i = 0; i < 3; ++i) {
    custody::report::TimelineSample s;
    s.step = i;
    s.by_category[static_cast<size_t>(MemoryCategory::kParameter)] = 1000 * (i + 1);
    s.bound = 500 * i;
    c.held_dead.timeline.push_back(s);
  }
  custody::report::SiteHeld site;
  site.frame = "make_features<float>()";
  site.held_dead_byte_steps = c.held_dead.held_dead_byte_steps;
  site.alive_at_peak_bytes = peak_bytes;
  site.category = MemoryCategory::kActivation;
  c.held_dead.sites.push_back(site);
  return c;
}

WorkloadData workload() {
  WorkloadData w{"mlp", "onednn", "training step", "a small MLP", 3, {}};
  w.contenders.push_back(policy("scope</script>", 2.0, 2 << 20, 30));
  w.contenders.push_back(policy("manual", 1.0, 3 << 20, 20));
  ContenderData peer;
  peer.name = "libtorch";
  peer.median_ms = peer.min_ms = 4.0;
  w.contenders.push_back(peer);
  return w;
}

std::string embedded_data(const std::string& page) {
  const std::string open = "<script id=\"report-data\" type=\"application/json\">";
  const size_t begin = page.find(open);
  EXPECT_NE(begin, std::string::npos);
  const size_t end = page.find("</script>", begin);
  return page.substr(begin + open.size(), end - begin - open.size());
}

TEST(HtmlTest, CarriesTheStyleSheetAndScriptAsTheyAre) {
  const std::string page = custody::report::render_html("t", {workload()});
  EXPECT_TRUE(absl::StrContains(page, std::string("<style>\n") + std::string(custody::report::kReportCss) +
                                          "</style>"));
  EXPECT_TRUE(absl::StrContains(page, std::string("<script>\n") + std::string(custody::report::kReportJs) +
                                          "</script>"));
  EXPECT_NE(custody::report::kReportJs.find("JSON.parse(document.getElementById('report-data')"),
            std::string_view::npos);
}

TEST(HtmlTest, EmbedsTheModelsChartData) {
  const std::vector<WorkloadData> w = {workload()};
  const std::string page = custody::report::render_html("t", w);
  const std::string text = embedded_data(page);
  EXPECT_FALSE(absl::StrContains(text, "</script")) << text;
  const Json data = Json::parse(text);
  EXPECT_EQ(data, custody::report::chart_data(w));
  ASSERT_EQ(data["categories"].size(), static_cast<size_t>(custody::kNumMemoryCategories));
  EXPECT_EQ(data["categories"][0], "parameter");
  const Json& scope = data["workloads"][0]["contenders"][0];
  EXPECT_EQ(scope["name"], "scope</script>");
  EXPECT_EQ(scope["peak_bytes"], 2 << 20);
  ASSERT_EQ(scope["samples"].size(), 3u);
  // [step, one per category, bound]
  EXPECT_EQ(scope["samples"][2], Json::parse("[2.0, 3000, 0, 0, 0, 0, 0, 0, 0, 1000]"));
  EXPECT_FALSE(data["workloads"][0]["contenders"][2]["has_memory"]);
  EXPECT_FALSE(data["workloads"][0]["contenders"][2].contains("samples"));
  // A chart per contender with memory, naming its place in the data.
  EXPECT_TRUE(
      absl::StrContains(page, "<div class=\"chart\" data-w=\"0\" data-c=\"1\" data-name=\"mlp/onednn/manual\">"));
  EXPECT_FALSE(absl::StrContains(page, "data-c=\"2\""));
}

TEST(HtmlTest, EscapesWhatItShows) {
  const std::string page = custody::report::render_html("a <b> & c", {workload()});
  EXPECT_TRUE(absl::StrContains(page, "<title>a &lt;b&gt; &amp; c</title>"));
  EXPECT_TRUE(absl::StrContains(page, "<h3>scope&lt;/script&gt;</h3>"));
  EXPECT_TRUE(absl::StrContains(page, "<code>make_features&lt;float&gt;()</code>"));
}

TEST(VerdictTest, NamesWhatTheNumbersSay) {
  const std::vector<std::string> v = custody::report::verdict(workload());
  ASSERT_EQ(v.size(), 5u);
  EXPECT_EQ(v[0], "Fastest: manual, 1.000 ms per training step (0.25× the peer).");
  EXPECT_EQ(v[1], "Nearest the live-set bound (1.00 MiB): scope</script>, peak 2.00 MiB = 2.00× the bound; "
                  "farthest: manual at 3.00×.");
  EXPECT_TRUE(absl::StartsWith(v[2], "Least memory held past its last use: scope</script> (10.0% of its byte-time)"))
      << v[2];
  EXPECT_EQ(v[3], "Cheapest to write: manual, 20 lines of idiom.");
  EXPECT_EQ(v[4], "No contender leaked.");
}

}  // namespace
