// Copyright 2026 The custody Authors.

#include "testing/bench/load.h"

#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace custody::bench {
namespace {

// A child's whole life: spin until the parent dies (PR_SET_PDEATHSIG), whatever
// way it exits.
[[noreturn]] void spin(pid_t parent) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(0);  // the parent died before the line above
  volatile unsigned long x = 0;
  for (;;) x = x * 2654435761u + 1;
}

}  // namespace

bool start_load_from_flags(int* argc, char** argv) {
  constexpr const char kFlag[] = "--load=";
  int kept = 1;
  long load = 0;
  for (int i = 1; i < *argc; ++i) {
    if (std::strncmp(argv[i], kFlag, sizeof(kFlag) - 1) != 0) {
      argv[kept++] = argv[i];
      continue;
    }
    const char* value = argv[i] + sizeof(kFlag) - 1;
    char* end = nullptr;
    load = std::strtol(value, &end, 10);
    if (*value == '\0' || *end != '\0' || load < 0 || load > 256) {
      std::fprintf(stderr, "--load: a number of processes, 0 to 256 (got '%s')\n", value);
      return false;
    }
  }
  *argc = kept;
  argv[kept] = nullptr;
  const pid_t parent = getpid();
  for (long i = 0; i < load; ++i) {
    const pid_t child = fork();
    if (child == 0) spin(parent);
    if (child < 0) {
      std::perror("--load: fork");
      return false;
    }
  }
  if (load > 0) std::fprintf(stderr, "--load: %ld spinning processes beside this one\n", load);
  return true;
}

}  // namespace custody::bench
