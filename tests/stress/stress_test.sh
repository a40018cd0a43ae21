#!/usr/bin/env bash
# Runs the stress binary briefly: STRESS_SECONDS (default 3) on its default threads, two per
# (policy, backend) pair of ALL_POLICIES x ALL_HOST_BACKENDS (tests/stress/stress_main.cc). The
# binary fails on a wrong value, a pair that never completed an iteration, or anything left on a
# backend.
exec "$1" --seconds="${STRESS_SECONDS:-3}"
