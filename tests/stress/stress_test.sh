#!/usr/bin/env bash
# Runs the stress binary for 10 s on 16 threads (tests/stress/BUILD).
exec "$1" --seconds="${STRESS_SECONDS:-10}" --threads=16
