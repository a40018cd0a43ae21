// Copyright 2026 The custody Authors.

#include "core/sites.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <new>

#include "absl/base/attributes.h"
#include "absl/debugging/stacktrace.h"
#include "absl/strings/str_format.h"
#include "absl/synchronization/mutex.h"
#include "core/symbolize.h"

namespace custody::sites {
namespace internal {

std::atomic<int> g_tracking{-1};  // -1: read the environment on first use

bool tracking_from_env() {
  const char* env = std::getenv("CUSTODY_TRACK_SITES");
  int v = (env != nullptr && env[0] == '1') ? 1 : 0;
  int expected = -1;
  if (!g_tracking.compare_exchange_strong(expected, v)) v = expected;
  return v == 1;
}

}  // namespace internal

using internal::g_tracking;

void set_tracking(bool on) { g_tracking.store(on ? 1 : 0, std::memory_order_relaxed); }

namespace {
absl::Mutex g_hold_mu;
int g_holds ABSL_GUARDED_BY(g_hold_mu) = 0;
bool g_held_from ABSL_GUARDED_BY(g_hold_mu) = false;
}  // namespace

void hold_tracking() {
  absl::MutexLock lock(&g_hold_mu);
  if (g_holds++ == 0) {
    g_held_from = tracking();
    set_tracking(true);
  }
}

void release_tracking() {
  absl::MutexLock lock(&g_hold_mu);
  if (g_holds > 0 && --g_holds == 0) set_tracking(g_held_from);
}

Site Site::from_frames(void* const* pcs, int n) noexcept try {
  if (n <= 0 || pcs == nullptr) return {};
  auto f = std::make_shared<Frames>();  // the one allocation (control block + frames)
  f->n = std::min(n, kMaxFrames);
  std::copy(pcs, pcs + f->n, f->pc);
  Site s;
  s.frames_ = std::move(f);
  return s;
} catch (...) {
  return {};
}

std::string Site::to_string() const {
  std::string out;
  if (frames_ == nullptr) return out;
  for (int i = 0; i < frames_->n; ++i) {
    void* pc = frames_->pc[i];
    for (const SourceFrame& f : symbolize(pc)) {
      absl::StrAppendFormat(&out, "    #%d %p %s%s\n", i, pc, format(f), f.inlined ? " (inlined)" : "");
    }
  }
  return out;
}

// Note [No skipped frames]
// ~~~~~~~~~~~~~~~~~~~~~~~~
// absl::GetStackTrace(..., skip) is documented to start at its caller (here
// capture()) after `skip` frames. It unwinds by frame pointers, and Debian's
// libabsl_stacktrace is built without them: GetStackTrace keeps no frame of its
// own, so the return address into capture() is never seen and the list starts
// one frame higher, at capture()'s caller (observed: with "skip + 1", frame #0
// was the caller's caller; core/sites_test checks the caller is in the first
// two frames). Asking it to skip capture() too therefore dropped the caller's
// frame (the policy's create/free function, or the user's own frame when that
// one was inlined into it, as under ASan). So nothing is skipped beyond the
// caller's `skip`: frame #0 is the caller of capture(), or capture() itself
// where GetStackTrace keeps a frame pointer — one frame too many rather than
// one too few. Both capturing functions call GetStackTrace directly and are
// never inlined.
ABSL_ATTRIBUTE_NOINLINE int capture_frames(void** pcs, int max_frames, int skip) noexcept {
  if (!tracking() || pcs == nullptr || max_frames <= 0) return 0;
  const int n = absl::GetStackTrace(pcs, max_frames, skip);
  return n > 0 ? n : 0;
}

ABSL_ATTRIBUTE_NOINLINE Site capture_stack(int skip) noexcept {
  if (!tracking()) return {};
  void* pcs[Site::kMaxFrames];
  const int n = absl::GetStackTrace(pcs, Site::kMaxFrames, skip);
  return Site::from_frames(pcs, n);
}

std::string describe(const char* what, const Site& site) {
  if (site.empty()) return describe(what, std::string());
  return describe(what, site.to_string());
}

std::string describe(const char* what, const std::string& site_text) {
  if (site_text.empty()) {
    return absl::StrFormat("  (%s: unknown; set CUSTODY_TRACK_SITES=1 to record sites)\n", what);
  }
  return absl::StrFormat("  %s:\n%s", what, site_text);
}

}  // namespace custody::sites
