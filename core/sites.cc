// Copyright 2026 The custody Authors.

#include "core/sites.h"

#include <atomic>
#include <cstdlib>

#include "absl/debugging/stacktrace.h"
#include "absl/debugging/symbolize.h"
#include "absl/strings/str_format.h"

namespace custody::sites {
namespace {

std::atomic<int> g_tracking{-1};  // -1: read the environment on first use

constexpr int kMaxFrames = 24;

}  // namespace

bool tracking() {
  int v = g_tracking.load(std::memory_order_relaxed);
  if (v < 0) {
    const char* env = std::getenv("CUSTODY_TRACK_SITES");
    v = (env != nullptr && env[0] == '1') ? 1 : 0;
    int expected = -1;
    if (!g_tracking.compare_exchange_strong(expected, v)) v = expected;
  }
  return v == 1;
}

void set_tracking(bool on) { g_tracking.store(on ? 1 : 0, std::memory_order_relaxed); }

std::string capture(int skip) noexcept try {
  if (!tracking()) return {};
  void* frames[kMaxFrames];
  // +1 skips capture() itself.
  const int n = absl::GetStackTrace(frames, kMaxFrames, skip + 1);
  std::string out;
  char name[1024];
  for (int i = 0; i < n; ++i) {
    const char* sym = absl::Symbolize(frames[i], name, sizeof(name)) ? name : "??";
    absl::StrAppendFormat(&out, "    #%d %p %s\n", i, frames[i], sym);
  }
  return out;
} catch (...) {
  return {};
}

std::string describe(const char* what, const std::string& site) {
  if (site.empty()) {
    return absl::StrFormat("  (%s: unknown; set CUSTODY_TRACK_SITES=1 to record sites)\n", what);
  }
  return absl::StrFormat("  %s:\n%s", what, site);
}

}  // namespace custody::sites
