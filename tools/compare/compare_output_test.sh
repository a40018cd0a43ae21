#!/usr/bin/env bash
# compare's results are never silently lost (Note [Results never silently lost], custody/report/output.h):
# an output directory that cannot be made is an error naming it and the OS's reason, before anything is
# measured, with a non-zero exit and no "wrote"; a good run creates the directory with its parents, and
# every file "wrote" names exists, with no temporary left; a failed run leaves earlier results as they were.
#   compare_output_test.sh path/to/compare
set -uo pipefail
compare=$1
tmp=${TEST_TMPDIR:-$(mktemp -d)}
fail() { echo "FAIL: $*" >&2; exit 1; }
quick=(--quick --workloads=ops --contenders=tensor_ptr,libtorch)

# 1. An output path under a file: refused at once.
out=$("$compare" "${quick[@]}" --out=/dev/null/x 2>"$tmp/err"); rc=$?
(( rc != 0 )) || fail "--out=/dev/null/x exited 0"
grep -qF "cannot create the directory '/dev/null/x': Not a directory" "$tmp/err" || fail "message: $(cat "$tmp/err")"
grep -q "wrote" <<<"$out" && fail "claimed to write: $out"
grep -q "median" "$tmp/err" && fail "measured before finding the directory unusable"

# 2. A fresh nested directory: made; every file named exists; nothing temporary left.
dir="$tmp/a/b/c"
out=$("$compare" "${quick[@]}" --out="$dir" 2>"$tmp/err") || fail "good run failed: $(cat "$tmp/err")"
line=$(grep "^wrote " <<<"$out") || fail "no wrote line: $out"
IFS=',' read -ra files <<<"${line#wrote }"
(( ${#files[@]} >= 1 )) || fail "wrote nothing"
for f in "${files[@]}"; do
  f=${f# }
  [[ -s $f ]] || fail "wrote names $f, which does not exist or is empty"
done
[[ -s $dir/compare.json ]] || fail "no compare.json"
leftovers=$(find "$dir" -name '*.tmp.*')
[[ -z $leftovers ]] || fail "temporary files left: $leftovers"

# 3. A run that fails leaves the earlier results as they were.
echo OLD >"$dir/compare.json"
"$compare" --quick --workloads=llama --llama_checkpoint="$tmp" --out="$dir" >/dev/null 2>"$tmp/err" &&
  fail "a directory as a checkpoint was accepted"
grep -q "is a directory" "$tmp/err" || fail "message: $(cat "$tmp/err")"
[[ $(cat "$dir/compare.json") == OLD ]] || fail "the failed run replaced compare.json"
echo "PASS"
