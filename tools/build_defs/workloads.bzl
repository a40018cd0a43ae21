"""A workload package of //workloads: the model and data, one idiomatic header per policy, the
libtorch peer and the test, all from one call:

    workload(name = "mlp", deps = ["//core/nn"])

expects <name>.h/.cc (the model and data), <policy>.h for every policy (the step in that policy's
idiom, header-only, any backend), selected.h (the idiom of the flag-chosen policy), <name>_libtorch.cc
(the same work in plain libtorch) and <name>_test.cc (every policy on every host backend against the
peer), and emits the libraries :<name>, :<policy> for each policy, :selected and :libtorch, and the
cc_test :<name>_test.
"""

load("//tools/build_defs:flags.bzl", "POLICIES")

def workload(name, deps = [], test_size = "medium"):
    native.exports_files(native.glob(["*.h"]))
    native.cc_library(
        name = name,
        srcs = [name + ".cc"],
        hdrs = [name + ".h"],
        deps = deps + [
            "//core",
            "//core/nn",
            "//workloads:workload",
        ],
    )

    # The idiom of the policy chosen at build time. A target that uses it also depends on that
    # policy's library below (//tools/build_defs:examples.bzl does).
    native.cc_library(
        name = "selected",
        hdrs = ["selected.h"],
        deps = [
            ":" + name,
            "//custody:tensor_for_policy",
        ],
    )
    for policy in POLICIES:
        native.cc_library(
            name = policy,
            hdrs = [policy + ".h"],
            deps = [
                ":" + name,
                "//policies/" + policy,
            ],
        )

    # The compare tool's peer: the only translation unit of the workload that includes ATen.
    native.cc_library(
        name = "libtorch",
        srcs = [name + "_libtorch.cc"],
        deps = [
            ":" + name,
            "//third_party:torch",
        ],
    )
    native.cc_test(
        name = name + "_test",
        size = test_size,
        srcs = [name + "_test.cc"],
        deps = [":" + policy for policy in POLICIES] + [
            ":" + name,
            ":libtorch",
            "//workloads:testing",
            "//third_party:gtest_main",
        ],
    )
