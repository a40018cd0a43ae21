"""cc_fuzz_test: a libFuzzer entry point (LLVMFuzzerTestOneInput) that is also an ordinary test.

    cc_fuzz_test(
        name = "shape_fuzz_test",
        srcs = ["shape_fuzz_test.cc"],
        corpus = glob(["corpus/shape/*"]),
        deps = ["//core"],
    )

Without --config=fuzz (gcc, any of opt/asan/ubsan/tsan): linked with a replay main
(//tools/build_defs:fuzz_replay_main) that runs every corpus file, then deterministic pseudo-random inputs,
through LLVMFuzzerTestOneInput — a regression test that `bazel test //...` always runs.

With --config=fuzz (clang, -fsanitize=fuzzer-no-link,address everywhere): linked with libFuzzer
(-fsanitize=fuzzer); as a test it fuzzes for -runs=N iterations (N = `fuzz_runs`) seeded with the corpus
(-seed_inputs). Fuzz targets must not depend on //third_party:torch (incompatible under clang, see there).
To fuzz for real:  bazel run --config=fuzz //pkg:name -- -max_total_time=600 /tmp/corpus_dir
"""

def cc_fuzz_test(name, srcs, deps = [], corpus = [], fuzz_runs = 2000, tags = [], **kwargs):
    native.cc_test(
        name = name,
        srcs = srcs,
        data = corpus,
        args = select({
            "//tools/build_defs:fuzz_enabled": ["-runs={}".format(fuzz_runs)] + (
                ["-seed_inputs=" + ",".join(["$(location {})".format(c) for c in corpus])] if corpus else []
            ),
            "//conditions:default": ["$(location {})".format(c) for c in corpus],
        }),
        linkopts = select({
            "//tools/build_defs:fuzz_enabled": ["-fsanitize=fuzzer"],
            "//conditions:default": [],
        }),
        deps = deps + select({
            "//tools/build_defs:fuzz_enabled": [],
            "//conditions:default": ["//tools/build_defs:fuzz_replay_main"],
        }),
        tags = tags + ["fuzz"],
        **kwargs
    )
