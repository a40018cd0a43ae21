#!/usr/bin/env bash
# Runs the stress binary briefly: STRESS_SECONDS (default 3) on its 16 threads, thread i in policy
# i % N of the N of ALL_POLICIES (tests/stress/BUILD). The binary fails on a wrong value, a policy
# that never completed an iteration, or anything left.
exec "$1" --seconds="${STRESS_SECONDS:-3}"
