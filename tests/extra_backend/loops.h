// Copyright 2026 The custody Authors.
//
// tests/extra_backend/loops.h — `custody::Loops`, a test-only host backend:
// the host loops of backends/host (what onednn runs for work too small for a
// primitive) for every kernel, no oneDNN at all, on host memory from a caching
// allocator of its own (its stats apart from every other backend's).
//
// It is here to prove docs/extending.md's "Adding a backend" steps complete:
// this package and its entry in TEST_HOST_BACKENDS (tools/build_defs/flags.bzl)
// put it in the conformance matrix, the workloads' tests, the compare tool's
// test build, failure injection and the benchmarks, with no edit anywhere
// else (//tests/lists:lists_test checks that each of them runs it).

#ifndef CUSTODY_TESTS_EXTRA_BACKEND_LOOPS_H_
#define CUSTODY_TESTS_EXTRA_BACKEND_LOOPS_H_

#include <cstddef>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/backend.h"

namespace custody {

struct Loops {
  static constexpr const char* name = "loops";
  static Device device() { return Device{DeviceType::kCPU, 0}; }
  static bool available() { return true; }

  // allocate, deallocate, copy_to_host, copy_from_host, stats and the kernels
  // (Note [The kernel interface, declared once], core/backend.h): host memory,
  // copies that are memcpy, and each kernel the backends/host loop of its name.
  CUSTODY_DECLARE_BACKEND_FUNCTIONS()
  static absl::Status synchronize() { return absl::OkStatus(); }
};

static_assert(Backend<Loops>);

}  // namespace custody

#endif  // CUSTODY_TESTS_EXTRA_BACKEND_LOOPS_H_
