#!/usr/bin/env bash
# tools/bench/before_after.sh — two builds' benchmark binaries run interleaved, back to back, and
# compared: what a change did to every case, with the machine's drift shared by both sides.
#
#   tools/bench/before_after.sh BEFORE_DIR AFTER_DIR OUT_DIR [ROUNDS] [-- EXTRA_BENCHMARK_FLAGS...]
#   REPS=5 tools/bench/before_after.sh /tmp/before /tmp/after /tmp/ba 2 -- --benchmark_min_time=0.05
#
# BEFORE_DIR and AFTER_DIR hold benchmark binaries of the same file names (copies of what
# `./bazelw build --config=opt` made of each target tools/bench/run.sh lists, from the two commits).
# For each of ROUNDS rounds (default 2) and each binary present on both sides, the two run one after
# the other (before first in odd rounds, after first in even ones), each with
# --benchmark_repetitions=$REPS (default 5) and random interleaving, writing
# OUT_DIR/{before,after}/<round>-<binary>.json. Then tools/bench/report.py merges each side's
# repetitions (OUT_DIR/{before,after}.json) and tools/bench/compare_runs.py prints the table
# (OUT_DIR/before_after.md): per benchmark, each side's min and its ratio to the case's peer in the
# same side's runs. A benchmark only one side has shows "—" on the other.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
if (($# < 3)); then
  sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//' >&2
  exit 2
fi
before=$(realpath "$1") after=$(realpath "$2") out=$3
shift 3
rounds=2
if (($#)) && [[ $1 != -- ]]; then rounds=$1; shift; fi
if (($#)) && [[ $1 == -- ]]; then shift; fi
extra=("$@")
reps=${REPS:-5}
mkdir -p "$out/before" "$out/after"

run_one() {  # side binary round
  local side=$1 bin=$2 round=$3 dir
  dir=$([[ $side == before ]] && echo "$before" || echo "$after")
  echo "== round $round $side $bin" >&2
  "$dir/$bin" --benchmark_repetitions="$reps" --benchmark_enable_random_interleaving=true \
    --benchmark_out="$out/$side/$round-$bin.json" --benchmark_out_format=json "${extra[@]}" >/dev/null
}

mapfile -t binaries < <(cd "$before" && for f in *; do [[ -x $f && -x $after/$f ]] && echo "$f"; done)
if ((${#binaries[@]} == 0)); then
  echo "before_after.sh: no binary in both $before and $after" >&2
  exit 1
fi
for ((round = 1; round <= rounds; ++round)); do
  for bin in "${binaries[@]}"; do
    if ((round % 2)); then
      run_one before "$bin" "$round"
      run_one after "$bin" "$round"
    else
      run_one after "$bin" "$round"
      run_one before "$bin" "$round"
    fi
  done
done
python3 tools/bench/report.py --out "$out/before.json" "$out"/before/*.json >/dev/null
python3 tools/bench/report.py --out "$out/after.json" "$out"/after/*.json >/dev/null
python3 tools/bench/compare_runs.py --interleaved "$out/before.json" "$out/after.json" | tee "$out/before_after.md"
