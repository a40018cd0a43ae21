// Copyright 2026 The custody Authors.

#include "custody/report/verdict.h"

#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace custody::report {

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

}  // namespace custody::report
