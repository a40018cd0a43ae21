#!/usr/bin/env bash
# Bad command lines are usage errors (Note [Flags], tools/flags/flags.h): exit status 2 and a message
# naming the flag, and nothing run. Each case below ran something (or nothing) with status 0 before
# the programs parsed their flags with Abseil.
#   cli_errors_test.sh COMPARE LLAMA MLP
set -uo pipefail
compare=$1 llama=$2 mlp=$3
failures=0
# expect_usage_error WANT_IN_STDERR PROGRAM ARGS...
expect_usage_error() {
  local want=$1; shift
  local err rc
  err=$("$@" 2>&1 >/dev/null); rc=$?
  if (( rc != 2 )); then
    echo "FAIL: $(basename "$1") ${*:2}: exit status $rc, not 2 ($err)" >&2; failures=$((failures + 1))
  elif [[ $err != *"$want"* ]]; then
    echo "FAIL: $(basename "$1") ${*:2}: message lacks '$want': $err" >&2; failures=$((failures + 1))
  else
    echo "ok: $(basename "$1") ${*:2}: $err"
  fi
}
expect_usage_error "--contenders: 'bogus' is not one of them; allowed: " "$compare" --contenders=bogus
expect_usage_error "--contenders is empty" "$compare" --contenders=
expect_usage_error "--workloads is empty; allowed: mlp,llama,ops" "$compare" --workloads=
expect_usage_error "--workloads: 'mpl' is not one of them" "$compare" --workloads=mlp,mpl
expect_usage_error "--steps=99999999999999999999: Illegal value" "$compare" --steps=99999999999999999999
expect_usage_error "--steps=0: must be at least 1" "$compare" --steps=0
expect_usage_error "unknown flag --stpes; the flags: " "$compare" --stpes=5
expect_usage_error "--out is empty" "$compare" --out=
expect_usage_error "--ops_size must be even" "$compare" --ops_size=7
expect_usage_error "--ops_size=0: must be at least 2" "$compare" --ops_size=0
expect_usage_error "--ops_tiny_ops=1: must be at least 2" "$compare" --ops_tiny_ops=1
expect_usage_error "unexpected argument 'quick'" "$compare" quick
expect_usage_error "--tokens=-1: must be at least 1" "$llama" --tokens=-1
expect_usage_error "--tokens=abc: Illegal value 'abc'" "$llama" --tokens=abc
expect_usage_error "--tokens needs a value" "$llama" --tokens
expect_usage_error "unknown flag --token" "$llama" --token=3
expect_usage_error "--max_steps=0: must be at least 1" "$mlp" --max_steps=0
expect_usage_error "--max_steps=1e3: Illegal value" "$mlp" --max_steps=1e3
# --help is generated from the flags.
help=$("$llama" --help 2>&1)
[[ $help == *"--tokens (tokens to generate after BOS"*"default: 16"* ]] ||
  { echo "FAIL: llama --help: $help" >&2; failures=$((failures + 1)); }
(( failures == 0 )) && echo PASS
exit $(( failures > 0 ))
