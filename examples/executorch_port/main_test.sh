#!/usr/bin/env bash
# Runs the ported ExecuTorch program and compares its output with ExecuTorch's results.
set -euo pipefail
diff -u "$2" <("$1") && echo "output matches $2"
