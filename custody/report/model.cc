// Copyright 2026 The custody Authors.

#include "custody/report/model.h"

#include <algorithm>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_format.h"

namespace custody::report {

std::string mib(double bytes) { return absl::StrFormat("%.2f", bytes / kMiB); }

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

std::vector<size_t> chart_samples(const std::vector<TimelineSample>& t) {
  std::vector<size_t> keep;
  if (t.size() <= 2 * kChartBuckets) {
    for (size_t i = 0; i < t.size(); ++i) keep.push_back(i);
    return keep;
  }
  const size_t per = (t.size() + kChartBuckets - 1) / kChartBuckets;
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

namespace {

Json contender_chart(const ContenderData& c) {
  Json j;
  j["name"] = c.name;
  j["has_memory"] = c.has_memory;
  if (!c.has_memory) return j;
  const HeldDead& h = c.held_dead;
  j["peak_bytes"] = h.peak_bytes;
  j["peak_step"] = json_number(h.peak_step);
  j["lower_bound_bytes"] = c.lower_bound_bytes;
  Json samples = Json::array();
  for (size_t i : chart_samples(h.timeline)) {
    const TimelineSample& s = h.timeline[i];
    Json sample = Json::array();
    sample.push_back(json_number(s.step));
    for (const CategoryStyle& cs : kStack) sample.push_back(s.by_category[static_cast<size_t>(cs.category)]);
    sample.push_back(s.bound);
    samples.push_back(std::move(sample));
  }
  j["samples"] = std::move(samples);
  return j;
}

}  // namespace

Json chart_data(const std::vector<WorkloadData>& workloads) {
  Json categories = Json::array(), colors = Json::array();
  for (const CategoryStyle& cs : kStack) {
    categories.push_back(category_name(cs.category));
    colors.push_back(cs.color);
  }
  Json all = Json::array();
  for (const WorkloadData& w : workloads) {
    Json contenders = Json::array();
    for (const ContenderData& c : w.contenders) contenders.push_back(contender_chart(c));
    Json jw;
    jw["workload"] = w.workload;
    jw["unit"] = w.unit;
    jw["contenders"] = std::move(contenders);
    all.push_back(std::move(jw));
  }
  Json d;
  d["categories"] = std::move(categories);
  d["colors"] = std::move(colors);
  d["workloads"] = std::move(all);
  return d;
}

}  // namespace custody::report
