#!/usr/bin/env bash
# The C ABI as a binding meets it: custody/c_api_test.c compiled by the system's C compiler against
# custody/c_api.h alone and linked with libcustody_c.so (the default selection: --//policies:policy and
# --//backends:backend), then run, loading the library as a P/Invoke or ctypes binding would.
set -euo pipefail
lib=$(dirname "$(realpath custody/libcustody_c.so)")
out=${TEST_TMPDIR:-$(mktemp -d)}
cc -std=c99 -Wall -Wextra -Werror -I. custody/c_api_test.c -o "$out/c_api_test" \
  -L"$lib" -l:libcustody_c.so -Wl,-rpath,"$lib" -lpthread -lm
"$out/c_api_test"
