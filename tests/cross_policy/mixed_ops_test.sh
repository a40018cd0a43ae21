#!/usr/bin/env bash
# An op on tensors of two policies is a compile error naming share_as and transfer (core/tensor.h's
# CUSTODY_ONE_POLICY); the same code with one policy compiles. Runs the compiler on
# mixed_ops_do_not_compile.cc with the headers in this test's runfiles.
set -uo pipefail
src=$1
root=$(pwd)  # the runfiles tree of this workspace: src is relative to it
cxx=${CXX:-g++}
flags=(-std=c++20 -fsyntax-only -I"$root")
if ! "$cxx" "${flags[@]}" -DCUSTODY_SAME_POLICY "$src" 2>"$TEST_TMPDIR/same.err"; then
  echo "FAIL: the one-policy control does not compile:"; cat "$TEST_TMPDIR/same.err"; exit 1
fi
if "$cxx" "${flags[@]}" "$src" 2>"$TEST_TMPDIR/mixed.err"; then
  echo "FAIL: add and matmul on two policies' tensors compiled"; exit 1
fi
for op in add matmul; do
  grep -q "custody: $op on tensors of two ownership policies.*share_as.*transfer" "$TEST_TMPDIR/mixed.err" ||
    { echo "FAIL: no message for $op:"; cat "$TEST_TMPDIR/mixed.err"; exit 1; }
done
echo "PASS: mixing policies in an op is a compile error naming share_as and transfer"
