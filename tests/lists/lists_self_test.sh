#!/usr/bin/env bash
# tests/lists/lists_self_test.sh LISTS_TEST — lists_test.sh catches what it should: run over stand-ins
# for the tools (shell scripts that list policies ann, bea on backends xx, yy the way each real tool
# does), it passes when every place lists everything, and fails naming the place when one place
# misses one policy or one backend (a plant per place).
set -uo pipefail

lists_test=$1
tmp="${TEST_TMPDIR:-$(mktemp -d)}/lists_self_test"
mkdir -p "$tmp/bin"

# Each stand-in leaves out what $DROP names ("<place>:<policy or backend>").
cat >"$tmp/bin/idioms_test" <<'EOF'
#!/usr/bin/env bash
echo "Idioms."
for i in Ann Bea; do [[ ${DROP:-} == idioms:$i ]] || echo "  $i"; done
EOF
cat >"$tmp/bin/compare" <<'EOF'
#!/usr/bin/env bash
for b in xx yy; do
  [[ ${DROP:-} == compare:$b ]] && continue
  line="$b/mlp:"
  for p in ann bea:collect_every_step; do [[ ${DROP:-} == compare:${p%%:*} ]] || line+=" $p"; done
  echo "$line libtorch"
done
EOF
cat >"$tmp/bin/stress" <<'EOF'
#!/usr/bin/env bash
for p in ann bea; do [[ ${DROP:-} == stress:$p ]] || echo "$p: 12 iterations"; done
for b in xx yy; do
  [[ ${DROP:-} == stress:$b ]] || echo "on $b: 12 iterations"
  echo "left on $b: 0 tensors, 0 bytes"
done
echo PASS
EOF
cat >"$tmp/bin/policy_benchmark" <<'EOF'
#!/usr/bin/env bash
for p in ann bea; do
  for b in xx yy; do
    [[ ${DROP:-} == bench:$p || ${DROP:-} == bench:$b ]] || echo "tiny_add/$p:$b/real_time"
  done
done
EOF
cat >"$tmp/bin/failure_injection_test" <<'EOF'
#!/usr/bin/env bash
for w in mlp llama ops; do
  for p in ann bea; do
    for b in xx yy; do
      [[ ${DROP:-} == failure:$p || ${DROP:-} == failure:$b ]] || echo "$w under $p on $b: 10 allocations"
    done
  done
done
EOF
for p in ann bea; do
  cat >"$tmp/bin/lifetime_${p}_fuzz_test" <<'EOF'
#!/usr/bin/env bash
[[ ${CUSTODY_FUZZ_LIST_BACKENDS:-} == 1 ]] || exit 2
for b in xx yy; do [[ ${DROP:-} == fuzz:$b ]] || echo "lifetime fuzz backend: $b"; done
EOF
done
chmod +x "$tmp"/bin/*

run() {  # DROP fuzzers... ; prints the output of lists_test.sh, returns its status
  local drop=$1
  shift
  DROP=$drop TEST_TMPDIR="$tmp/run" bash -c 'mkdir -p "$TEST_TMPDIR"; exec bash "$@"' _ "$lists_test" \
    --policies=ann,bea --backends=xx,yy --idioms=Ann,Bea "$tmp/bin/idioms_test" "$tmp/bin/compare" \
    "$tmp/bin/stress" "$tmp/bin/policy_benchmark" "$tmp/bin/failure_injection_test" "$@"
}
fuzzers=("$tmp/bin/lifetime_ann_fuzz_test" "$tmp/bin/lifetime_bea_fuzz_test")
failures=0

if ! out=$(run "" "${fuzzers[@]}"); then
  echo "FAIL: lists_test failed with every place complete:"
  echo "$out"
  failures=$((failures + 1))
fi

# plant | the FAIL line lists_test must print
plants=(
  "idioms:Bea|examples/idioms: no TEST(Idioms, Bea)"
  "compare:bea|compare: no contender of bea in 'xx/mlp: ann libtorch'"
  "compare:yy|compare: no workload on backend yy"
  "stress:bea|stress: no iterations of bea"
  "stress:yy|stress: no iterations on yy"
  "bench:bea|policy_benchmark: nothing registered for bea:xx"
  "bench:yy|policy_benchmark: nothing registered for ann:yy"
  "failure:bea|failure injection: mlp never ran under bea on xx"
  "failure:yy|failure injection: mlp never ran under ann on yy"
  "fuzz:yy|lifetime_ann_fuzz_test: programs never run on backend yy"
)
for plant in "${plants[@]}"; do
  drop=${plant%%|*}
  want=${plant#*|}
  if out=$(run "$drop" "${fuzzers[@]}"); then
    echo "FAIL: lists_test passed with $drop left out"
    failures=$((failures + 1))
  elif ! grep -qF "FAIL: $want" <<<"$out"; then
    echo "FAIL: with $drop left out, lists_test did not say '$want':"
    echo "$out"
    failures=$((failures + 1))
  fi
done
# A policy without a fuzzer.
if out=$(run "" "${fuzzers[0]}"); then
  echo "FAIL: lists_test passed with no fuzzer for bea"
  failures=$((failures + 1))
elif ! grep -qF "FAIL: no lifetime fuzzer for bea" <<<"$out"; then
  echo "FAIL: lists_test did not name the missing fuzzer: $out"
  failures=$((failures + 1))
fi

if ((failures)); then
  echo "$failures failures"
  exit 1
fi
echo "PASS: ${#plants[@]} plants and a missing fuzzer caught, the complete lists passed"
