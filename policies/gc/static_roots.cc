// Copyright 2026 The custody Authors.
//
// policies/gc/static_roots.cc — the filter that decides which loaded objects'
// writable static data the collector scans for roots (Note [Static roots] in
// gc.h), and what its last pass offered.

#include "policies/gc/internal.h"

#include <dlfcn.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"

namespace custody::gc::internal {

bool scan_all_now() {
  int v = g_roots.scan_all.load(std::memory_order_relaxed);
  if (v < 0) {
    const char* env = std::getenv("CUSTODY_GC_SCAN_ALL_LIBRARIES");
    v = (env != nullptr && env[0] == '1') ? 1 : 0;
    int expected = -1;
    if (!g_roots.scan_all.compare_exchange_strong(expected, v)) v = expected;
  }
  return v == 1;
}

const char* object_path(const void* address) {
  Dl_info info;
  if (dladdr(address, &info) == 0 || info.dli_fname == nullptr) return nullptr;
  return info.dli_fname;
}

namespace {

// Where distributions install shared libraries (and the CUDA toolkit): code
// built elsewhere than the program cannot hold its handles in its globals.
constexpr const char* kSystemLibraryDirs[] = {
    "/lib/",     "/lib32/",     "/lib64/",     "/libx32/",         "/usr/lib/",
    "/usr/lib32/", "/usr/lib64/", "/usr/libx32/", "/usr/local/cuda",
};

}  // namespace

void read_extra_system_dirs() {
  auto* dirs = new std::vector<std::string>;  // immortal: the filter may run at exit
  if (const char* env = std::getenv("CUSTODY_GC_SYSTEM_DIRS"); env != nullptr) {
    for (absl::string_view dir : absl::StrSplit(env, ':', absl::SkipEmpty())) {
      std::string d(dir);
      if (d.back() != '/') d.push_back('/');
      dirs->push_back(std::move(d));
    }
  }
  g_roots.extra_system_dirs = dirs;
}

namespace {

bool in_system_library_dir(const char* path) {
  for (const char* dir : kSystemLibraryDirs) {
    if (std::strncmp(path, dir, std::strlen(dir)) == 0) return true;
  }
  if (g_roots.extra_system_dirs != nullptr) {
    for (const std::string& dir : *g_roots.extra_system_dirs) {
      if (std::strncmp(path, dir.c_str(), dir.size()) == 0) return true;
    }
  }
  return false;
}

bool same_path(const char* a, const char* b) { return b != nullptr && std::strcmp(a, b) == 0; }

constinit RootsPass g_roots_pass;

}  // namespace

bool scans_object(const char* path) {
  if (path == nullptr || path[0] == '\0') return true;  // the main program (dl_iterate_phdr: "")
  if (!in_system_library_dir(path)) return true;         // ours and the user's libraries
  if (same_path(path, g_roots.libgc_path)) return true;   // libgc's own tables (its thread table)
  if (same_path(path, g_roots.self_path)) return true;    // this policy, however installed
  return scan_all_now();
}

// libgc's filter (GC_register_has_static_roots_callback): called for every
// writable segment of every loaded object, main program first, each time the
// collector re-registers the libraries (at every collection), with its
// allocation lock held: no allocation, no lock, nothing that can throw.
int GC_CALLBACK filter_static_roots(const char* path, void* start, size_t bytes) {
  RootsPass& p = g_roots_pass;
  if (p.first_segment == nullptr) p.first_segment = start;
  if (start == p.first_segment) p = RootsPass{start, nullptr, 0, 0, 0, 0};  // a new pass
  const bool scan = scans_object(path);
  const bool new_object = path != p.last_object;
  p.last_object = path;
  if (scan) {
    p.objects_scanned += new_object;
    p.bytes_scanned += static_cast<int64_t>(bytes);
  } else {
    p.objects_skipped += new_object;
    p.bytes_skipped += static_cast<int64_t>(bytes);
  }
  return scan ? 1 : 0;
}

void* read_roots_pass(void* out) {
  *static_cast<RootsPass*>(out) = g_roots_pass;
  return nullptr;
}

}  // namespace custody::gc::internal
