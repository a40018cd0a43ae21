// Copyright 2026 The custody Authors.

#ifndef CUSTODY_POLICIES_GC_GC_ROOTS_TEST_LIBRARY_H_
#define CUSTODY_POLICIES_GC_GC_ROOTS_TEST_LIBRARY_H_

#include <cstddef>

namespace custody::gc::roots_test {

inline constexpr size_t kLibrarySlotBytes = 64;

// Static storage (zero-initialized .bss) of the library, for one handle.
void* library_slot();

}  // namespace custody::gc::roots_test

#endif  // CUSTODY_POLICIES_GC_GC_ROOTS_TEST_LIBRARY_H_
