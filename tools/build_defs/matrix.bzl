"""The conformance matrix, on two axes: one cc_test per (policy, backend) combination for what a
policy does, one per backend for what a backend computes.

    conformance_matrix(combinations = [("tensor_ptr", "onednn"), ...], kernel_backends = ["onednn", ...])

emits, for each pair, `conformance_<policy>_<backend>`: the lifetime suites of //tests/conformance
(lifetime_suites.h: views, G1-G9, errors, threads, core/nn, the catalogue's lifetime half) plus the policy's own
contract suite (//policies/<p>:contract_suite), instantiated for BasicTensor<Policy, Backend> by
instantiate.cc; and, for each backend of `kernel_backends`, `kernels_<backend>`: the kernel suites
(kernel_suites.h: creation, numerics, the unsigned dtypes, the catalogue's inputs half) under KERNEL_POLICY, instantiated by
instantiate_kernels.cc. It also emits test_suites `policy_<p>`, `backend_<b>` (kernels included)
and `all`.

The suites name only the oracle's interface (//tests/conformance:oracle_api); each binary links
the implementation oracle_for(backend) gives: libtorch (//tests/conformance:oracle), except on
cuda, whose binaries run on a GPU machine without libtorch: custody's oneDNN backend there
(//tests/conformance:oracle_onednn, checked against libtorch by :oracle_onednn_test).

//tests/conformance runs every policy of POLICIES on every backend of SELECTABLE_BACKENDS
(tools/build_defs/flags.bzl), so adding a policy or backend = its own package plus its name in that
list; the suites are written once and instantiate.cc names no policy or backend.
"""

load("//tools/build_defs:cuda.bzl", "requires_cuda")
load("//tools/build_defs:flags.bzl", "BACKENDS", "POLICIES", "TEST_POLICIES", "backend_header", "backend_package", "camel_case", "policy_package")


# Backends whose test binaries must not link libtorch, and so compare against the oneDNN oracle.
_NO_TORCH_BACKENDS = ["cuda"]

def oracle_for(backend):
    """The implementation of oracle()/oracle_nn() (tests/conformance/oracle.h) a binary of `backend`
    links."""
    if backend in _NO_TORCH_BACKENDS:
        return "//tests/conformance:oracle_onednn"
    return "//tests/conformance:oracle"

# The policy the kernel suites run under: what a backend computes does not depend on how handles
# own tensors, so one policy is enough; tensor_ptr, the default of --//policies:policy.
KERNEL_POLICY = "tensor_ptr"

def conformance_matrix(
        combinations,
        suites,
        kernel_backends = [],
        size = "medium",
        shard_count = 1):
    """One cc_test per (policy, backend) pair, and one per backend of `kernel_backends`. A policy
    lives in //policies/<policy>, or in the package TEST_POLICIES names for it (flags.bzl)."""
    tests_by_policy = {}
    tests_by_backend = {}
    names = []
    for backend in kernel_backends:
        if backend not in BACKENDS:
            fail("unknown kernel backend {}; backends: {}".format(backend, BACKENDS))
        name = "kernels_" + backend
        kwargs = {}
        if backend == "cuda":
            kwargs["target_compatible_with"] = requires_cuda()
        native.cc_test(
            name = name,
            srcs = ["//tests/conformance:instantiate_kernels.cc"],
            local_defines = [
                'CUSTODY_POLICY_TESTING_HEADER=\\"policies/{}/testing.h\\"'.format(KERNEL_POLICY),
                "CUSTODY_POLICY_TYPE=custody::{}::Policy".format(KERNEL_POLICY),
                'CUSTODY_BACKEND_HEADER=\\"{}\\"'.format(backend_header(backend)),
                "CUSTODY_BACKEND_TYPE=custody::" + camel_case(backend),
            ],
            deps = suites + [
                oracle_for(backend),
                backend_package(backend),
                "//policies/{}:testing".format(KERNEL_POLICY),
                "//third_party:gtest_main",
            ],
            size = size,
            shard_count = shard_count,
            **kwargs
        )
        names.append(name)
        tests_by_backend.setdefault(backend, []).append(name)
    for policy, backend in combinations:
        if (policy not in POLICIES and policy not in TEST_POLICIES) or backend not in BACKENDS:
            fail("unknown combination ({}, {}); policies: {}; backends: {}".format(
                policy, backend, POLICIES, BACKENDS))
        package = policy_package(policy)
        name = "conformance_{}_{}".format(policy, backend)
        kwargs = {}
        if backend == "cuda":
            kwargs["target_compatible_with"] = requires_cuda()
        native.cc_test(
            name = name,
            srcs = ["//tests/conformance:instantiate.cc"],
            # instantiate.cc has no list of policies or backends: the names come from here, by
            # convention (policy p: custody::p::Policy and <CamelCase p>ContractTest in
            # policies/p/contract_suite.h; backend b: custody::<Capitalized b> in backends/b/b.h).
            local_defines = [
                'CUSTODY_POLICY_SUITE_HEADER=\\"{}/contract_suite.h\\"'.format(package[2:]),
                "CUSTODY_POLICY_TYPE=custody::{}::Policy".format(policy),
                "CUSTODY_POLICY_CONTRACT_SUITE={}ContractTest".format(camel_case(policy)),
                'CUSTODY_BACKEND_HEADER=\\"{}\\"'.format(backend_header(backend)),
                "CUSTODY_BACKEND_TYPE=custody::" + camel_case(backend),
            ],
            deps = suites + [
                oracle_for(backend),
                backend_package(backend),
                package + ":contract_suite",
                "//third_party:gtest_main",
            ],
            size = size,
            shard_count = shard_count,
            **kwargs
        )
        names.append(name)
        tests_by_policy.setdefault(policy, []).append(name)
        tests_by_backend.setdefault(backend, []).append(name)
    for policy, tests in tests_by_policy.items():
        native.test_suite(name = "policy_" + policy, tests = tests)
    for backend, tests in tests_by_backend.items():
        native.test_suite(name = "backend_" + backend, tests = tests)
    native.test_suite(name = "all", tests = names)

def policy_contract_suite(policy):
    """A policy package's `:testing` (testing.h: its PolicyIdiom) and `:contract_suite` (its typed
    contract_suite.h, run by the matrix, which therefore always has the policy's idiom)."""
    native.cc_library(
        name = "testing",
        # Not testonly, so benchmarks and tools can read the idiom; a test-only policy's is.
        testonly = policy in TEST_POLICIES,
        hdrs = ["testing.h"],
        deps = [
            ":" + policy,
            "//core:policy_idiom",
        ],
    )
    native.cc_library(
        name = "contract_suite",
        testonly = True,
        hdrs = ["contract_suite.h"],
        deps = [
            ":" + policy,
            ":testing",
            "//testing:disposable_checks",
            "//third_party:gtest",
        ],
    )
