// Copyright 2026 The custody Authors.
//
// A shared library (Bazel links a cc_test's deps as shared libraries under
// bazel-out/.../_solib_*) with a global the gc_roots_test keeps a handle in:
// a library of the user's, not installed under a system directory, whose
// static data the collector must keep scanning (Note [Static roots]).

#include "policies/gc/gc_roots_test_library.h"

namespace custody::gc::roots_test {

alignas(64) unsigned char g_library_slot[kLibrarySlotBytes];

void* library_slot() { return g_library_slot; }

}  // namespace custody::gc::roots_test
