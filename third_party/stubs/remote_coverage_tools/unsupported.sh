#!/bin/bash
# Stub: the real remote_coverage_tools is a download, which this offline workspace never makes.
echo "custody: 'bazel coverage' needs remote_coverage_tools, which is stubbed offline" >&2
exit 1
