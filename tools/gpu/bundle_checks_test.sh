#!/usr/bin/env bash
# pack.sh's checks (tools/gpu/bundle_checks.sh): check_no_rpath — a binary with a DT_RPATH fails the
# pack, naming the file and its path; one with a DT_RUNPATH (the toolchain's default) passes.
# left_to_system and check_cuda_libs — libcudart is always packed; --system-cuda-libs leaves exactly
# libcublas and libcublasLt to the machine (system_libs.txt), without it they are packed too.
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

# Which CUDA libraries --system-cuda-libs leaves out.
for lib in libcublas.so.13 libcublasLt.so.13 libcublas.so.13.0.2; do
  left_to_system "$lib" || fail "--system-cuda-libs packs $lib"
done
for lib in libcudart.so.13 libcuda.so.1 libcublas_static.a libdnnl.so.2 libcufft.so.12; do
  if left_to_system "$lib"; then fail "--system-cuda-libs leaves $lib to the machine"; fi
done

# check_cuda_libs on fake bundles: STAGE/lib and STAGE/system_libs.txt.
tmp=$(mktemp -d "${TEST_TMPDIR:-/tmp}/bundle_checks_test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
stage() {  # stage NAME FILE... — a bundle whose lib/ holds FILE...; prints its folder
  mkdir -p "$tmp/$1/lib"
  local f
  for f in "${@:2}"; do touch "$tmp/$1/lib/$f"; done
  echo "$tmp/$1"
}
expect_check() {  # expect_check STAGE SYSTEM_CUDA RC [MESSAGE]
  local rc=0 out
  out=$(check_cuda_libs "$1" "$2" 2>&1) || rc=$?
  ((rc == $3)) || fail "check_cuda_libs $1 $2: expected $3, got $rc: $out"
  [[ -z ${4:-} || $out == *"$4"* ]] || fail "check_cuda_libs $1 $2: expected '$4' in: $out"
}
s=$(stage system libcudart.so.13 libdnnl.so.2)
printf 'libcublas.so.13\nlibcublasLt.so.13\n' >"$s/system_libs.txt"
expect_check "$s" 1 0
s=$(stage full libcudart.so.13 libcublas.so.13 libcublasLt.so.13)
expect_check "$s" 0 0
# libcudart missing: the bundle of before, which left it to the machine.
s=$(stage no_cudart libdnnl.so.2)
printf 'libcublas.so.13\nlibcublasLt.so.13\nlibcudart.so.13\n' >"$s/system_libs.txt"
expect_check "$s" 1 1 "no lib/libcudart.so.*"
expect_check "$s" 1 1 "system_libs.txt names libcudart.so.13, which the bundle packs"
# cuBLAS packed although left to the machine; or not named in system_libs.txt.
s=$(stage blas_packed libcudart.so.13 libcublasLt.so.13)
printf 'libcublas.so.13\n' >"$s/system_libs.txt"
expect_check "$s" 1 1 "--system-cuda-libs, yet lib/ holds libcublasLt.so.13"
expect_check "$s" 1 1 "system_libs.txt does not name libcublasLt.so.*"
# Without --system-cuda-libs: cuBLAS must be in lib/, and no system_libs.txt.
s=$(stage full_without_lt libcudart.so.13 libcublas.so.13)
expect_check "$s" 0 1 "no lib/libcublasLt.so.*"
s=$(stage full_with_list libcudart.so.13 libcublas.so.13 libcublasLt.so.13)
touch "$s/system_libs.txt"
expect_check "$s" 0 1 "system_libs.txt in a bundle that packs every CUDA library"
echo "bundle_checks_test: ok"
