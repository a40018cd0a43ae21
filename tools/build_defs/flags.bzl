"""Build-setting rules for custody's command-line flags (no bazel_skylib: the workspace is offline).

    allowed_string_flag(name = "policy", values = POLICIES, build_setting_default = "scope")
    bool_flag(name = "cuda", build_setting_default = False)

Set them as `--//policies:policy=gc`; select on them through config_settings (see //policies:BUILD).
An allowed_string_flag given a value outside `values` fails the analysis of the flag target, and of
every target that depends on it, with the list of allowed values.
"""

# The axes of the conformance matrix, in the order tables print them (docs/design.md §2, §7). Every policy
# and backend package, the flags below and the matrix macro read these lists.
POLICIES = ["tensor_ptr", "dispose", "scope", "gc", "manual"]

# Policies for tests only, each with the package that defines it: in the conformance matrix and in
# every test-side list (//custody/lists:all_policies: the fuzzers, failure injection, the stress test, the
# workloads' tests, the compare tool's and benchmarks' test builds), never offered by the flag.
# counted (tests/extra_policy) proves docs/extending.md's "Adding a policy" steps complete; deferred
# (tests/extra_collector), a second policy that collects, proves the collector hooks of
# core/policy_idiom.h open (its idiom declares them; the tools read them and name no policy).
TEST_POLICIES = {"counted": "//tests/extra_policy", "deferred": "//tests/extra_collector"}

# Every policy a test runs: POLICIES, then TEST_POLICIES.
ALL_POLICIES = POLICIES + TEST_POLICIES.keys()

# The backends on the host (CPU) that the workloads' tests, the benchmarks and the compare tool loop
# over; a binary for the GPU takes its backend by name.
HOST_BACKENDS = ["onednn", "aten"]

def policy_package(policy):
    """The package that defines `policy`: //policies/<p>, or its entry in TEST_POLICIES."""
    if policy not in POLICIES and policy not in TEST_POLICIES:
        fail("unknown policy {}; policies: {}".format(policy, ALL_POLICIES))
    return TEST_POLICIES.get(policy, "//policies/" + policy)

# The values --//backends:backend accepts. cuda builds only with --config=cuda (//tools/build_defs:cuda.bzl):
# without it, a target that selects it is incompatible, and naming one on the command line says so.
SELECTABLE_BACKENDS = ["onednn", "cuda", "aten"]

# Backends for tests only: in the conformance matrix, never offered by the flag. opaque
# (backends/opaque) keeps its memory behind addresses the host must not read.
TEST_BACKENDS = ["opaque"]

# Host backends for tests only, each with the package that defines it: in the conformance matrix and
# in every test-side list of host backends (//custody/lists:all_host_backends: the workloads' tests,
# the benchmarks, the compare tool's test build, failure injection), never offered by the flag.
# loops (tests/extra_backend: the host loops without oneDNN) proves docs/extending.md's "Adding a
# backend" steps complete.
TEST_HOST_BACKENDS = {"loops": "//tests/extra_backend"}

# Every host backend a test runs: HOST_BACKENDS, then TEST_HOST_BACKENDS.
ALL_HOST_BACKENDS = HOST_BACKENDS + TEST_HOST_BACKENDS.keys()

# Every backend the conformance matrix knows.
BACKENDS = SELECTABLE_BACKENDS + TEST_BACKENDS + TEST_HOST_BACKENDS.keys()

def backend_package(backend):
    """The package that defines `backend`: //backends/<b>, or its entry in TEST_HOST_BACKENDS."""
    if backend not in BACKENDS:
        fail("unknown backend {}; backends: {}".format(backend, BACKENDS))
    return TEST_HOST_BACKENDS.get(backend, "//backends/" + backend)

def backend_header(backend):
    """The header of `backend`, by convention <package>/<b>.h, declaring custody::<CamelCase b>."""
    return "{}/{}.h".format(backend_package(backend)[2:], backend)

def camel_case(name):
    """tensor_ptr -> TensorPtr, onednn -> Onednn: the C++ spelling of a policy or backend name."""
    return "".join([part[:1].upper() + part[1:] for part in name.split("_")])

# The header that brings a policy's handles to custody::Tensor users, where it is not the convention
# policies/<p>/<p>.h: tensor_ptr's comes with its makers (make_tensor_ptr, ...).
_POLICY_HEADERS = {"tensor_ptr": "policies/tensor_ptr/make.h"}

def selected_policy_defines(policy):
    """The macros custody/tensor.h reads to name `policy`: its header and type, by convention
    (custody::<p>::Policy), and CUSTODY_SELECTED_POLICY_<P> for code that branches on it."""
    return [
        "CUSTODY_SELECTED_POLICY_" + policy.upper(),
        'CUSTODY_SELECTED_POLICY_HEADER=\\"{}\\"'.format(
            _POLICY_HEADERS.get(policy, "policies/{0}/{0}.h".format(policy)),
        ),
        "CUSTODY_SELECTED_POLICY_TYPE=custody::{}::Policy".format(policy),
    ]

def selected_backend_defines(backend):
    """The macros custody/tensor.h and the makers' default backend (policies/tensor_ptr/make.h) read to
    name `backend`: backends/<b>/<b>.h and custody::<CamelCase b>, by convention, and
    CUSTODY_SELECTED_BACKEND_<B>."""
    return [
        "CUSTODY_SELECTED_BACKEND_" + backend.upper(),
        'CUSTODY_SELECTED_BACKEND_HEADER=\\"backends/{0}/{0}.h\\"'.format(backend),
        "CUSTODY_SELECTED_BACKEND_TYPE=custody::" + camel_case(backend),
    ]

FlagInfo = provider(
    doc = "The value of a custody build setting.",
    fields = {"value": "the flag's value (string or bool)"},
)

def _flag_spelling(label):
    """How the flag is written on the command line: //pkg:name in custody, @custody//pkg:name outside."""
    if label.workspace_name:
        return "@{}//{}:{}".format(label.workspace_name, label.package, label.name)
    return "//{}:{}".format(label.package, label.name)

def _allowed_string_flag_impl(ctx):
    value = ctx.build_setting_value
    if value not in ctx.attr.values:
        fail("invalid value '{}' for --{}; allowed values: {}".format(
            value,
            _flag_spelling(ctx.label),
            ", ".join(ctx.attr.values),
        ))
    return [FlagInfo(value = value)]

allowed_string_flag = rule(
    implementation = _allowed_string_flag_impl,
    build_setting = config.string(flag = True),
    attrs = {
        "values": attr.string_list(
            mandatory = True,
            allow_empty = False,
            doc = "The allowed values.",
        ),
    },
    doc = "A string flag (--//pkg:name=value) that accepts only the values listed in `values`.",
)

def _bool_flag_impl(ctx):
    return [FlagInfo(value = ctx.build_setting_value)]

bool_flag = rule(
    implementation = _bool_flag_impl,
    build_setting = config.bool(flag = True),
    doc = "A boolean flag: --//pkg:name, --no//pkg:name, --//pkg:name=true|false.",
)

def flag_config_settings(flag, prefix, values):
    """One public config_setting `<prefix>_<value>` per allowed value of `flag`."""
    for value in values:
        native.config_setting(
            name = "{}_{}".format(prefix, value),
            flag_values = {flag: value},
            visibility = ["//visibility:public"],
        )

def _flag_values_file_impl(ctx):
    out = ctx.actions.declare_file(ctx.label.name + ".txt")
    lines = ["{}={}".format(str(f.label).lstrip("@"), f[FlagInfo].value) for f in ctx.attr.flags]
    ctx.actions.write(out, "\n".join(lines) + "\n")
    return [DefaultInfo(files = depset([out]))]

flag_values_file = rule(
    implementation = _flag_values_file_impl,
    attrs = {"flags": attr.label_list(providers = [FlagInfo])},
    doc = "Writes `label=value` for each flag in `flags` to <name>.txt (what this build was configured with).",
)
