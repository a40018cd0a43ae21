#!/usr/bin/env bash
# Builds and runs examples/consumer — a workspace of its own that uses custody through
# local_repository + custody_dependencies() + custody.bazelrc, as README's "Using custody from
# another workspace" says — with a non-default policy and backend, and checks what it prints.
#   consumer_test.sh <path of //:repositories.bzl>
set -euo pipefail
root=$(dirname "$(readlink -f "$1")")
home=${HOME:-$(getent passwd "$(id -u)" | cut -d: -f6)}
export HOME=$home
cache="$home/.cache/custody"
mkdir -p "$cache"
cd "$root/examples/consumer"
# Its own output base (kept between runs, like the disk cache), no convenience symlinks in the
# source tree, actions run without a nested sandbox.
bazel_args=(--output_base="$cache/consumer-output-base")
build_args=(--symlink_prefix=/ --spawn_strategy=local --disk_cache="$cache/bazel-disk" --color=no --curses=no
            --@custody//policies:policy=gc --@custody//backends:backend=aten)
out=$(bazel "${bazel_args[@]}" run "${build_args[@]}" //:main 2>"$TEST_TMPDIR/bazel.log") || {
  cat "$TEST_TMPDIR/bazel.log" >&2
  echo "FAIL: the consumer workspace did not build or run" >&2
  exit 1
}
bazel "${bazel_args[@]}" shutdown >/dev/null 2>&1 || true
echo "$out"
grep -qxF "policy gc, backend aten: tensor([1., 1., 1., 1.])" <<<"$out" || {
  echo "FAIL: unexpected output" >&2
  exit 1
}
