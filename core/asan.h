// Copyright 2026 The custody Authors.
//
// core/asan.h — CUSTODY_POISON / CUSTODY_UNPOISON: mark memory that custody
// caches instead of freeing (host blocks, tensor blocks, policy objects) as
// unusable under AddressSanitizer, so a use after free is still reported
// although the memory never went back to free(). No-ops in other builds.

#ifndef CUSTODY_CORE_ASAN_H_
#define CUSTODY_CORE_ASAN_H_

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CUSTODY_HAS_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define CUSTODY_HAS_ASAN 1
#endif

#ifdef CUSTODY_HAS_ASAN
#include <sanitizer/asan_interface.h>
#define CUSTODY_POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define CUSTODY_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define CUSTODY_POISON(p, n) ((void)(p), (void)(n))
#define CUSTODY_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

#endif  // CUSTODY_CORE_ASAN_H_
