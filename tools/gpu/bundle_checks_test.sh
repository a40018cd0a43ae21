#!/usr/bin/env bash
# pack.sh's check_no_rpath (tools/gpu/bundle_checks.sh): a binary with a DT_RPATH fails the pack, naming
# the file and its path; one with a DT_RUNPATH (the toolchain's default) passes.
#   bundle_checks_test.sh BUNDLE_CHECKS_SH WITH_RPATH WITH_RUNPATH
set -euo pipefail
source "$1"
fail() { echo "FAIL: $*" >&2; exit 1; }
[[ $(readelf -d "$2") == *"(RPATH)"* ]] || fail "$2 has no DT_RPATH: the test binary is not what it claims"
[[ $(readelf -d "$3") == *"(RUNPATH)"* ]] || fail "$3 has no DT_RUNPATH: the test binary is not what it claims"

rc=0; out=$(check_no_rpath "$2" 2>&1) || rc=$?
((rc == 1)) || fail "a DT_RPATH passed the check (exit $rc)"
[[ $out == *"$(basename "$2") has a DT_RPATH (/nonexistent/rpath-probe)"* ]] || fail "message: $out"

rc=0; out=$(check_no_rpath "$3" 2>&1) || rc=$?
((rc == 0)) || fail "a DT_RUNPATH failed the check: $out"
rc=0; out=$(check_no_rpath "$3" "$2" 2>&1) || rc=$?
((rc == 1)) || fail "one bad file among good ones passed"
echo "bundle_checks_test: ok"
