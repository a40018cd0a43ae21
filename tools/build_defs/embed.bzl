"""Files carried in a C++ program as string constants (a page's script and style sheet), kept as real
files in the tree and embedded at build time:

    cc_embedded_text(
        name = "page_assets",
        srcs = ["report.css", "report.js"],
        namespace = "custody::report",
    )

emits the cc_library :<name> with the generated header <package>/<name>.h, which declares for each
file of `srcs` `inline constexpr std::string_view k<Name>` (report.css: kReportCss) holding its bytes
exactly (embed_text.py writes it; python3, offline, like every genrule here).
"""

def cc_embedded_text(name, srcs, namespace, **kwargs):
    """The cc_library `name` whose header <package>/<name>.h holds `srcs` as string constants.

    Args:
      name: the library, and the header's base name.
      srcs: the files, each becoming the constant k<CamelCase of its base name>.
      namespace: the C++ namespace of the constants ("custody::report").
      **kwargs: passed on to the cc_library (visibility, testonly, ...).
    """
    header = name + ".h"
    native.genrule(
        name = name + "_header",
        srcs = srcs,
        outs = [header],
        cmd = "python3 $(location //tools/build_defs:embed_text.py) --namespace={} --header={}/{} $@ $(SRCS)".format(
            namespace,
            native.package_name(),
            header,
        ),
        tools = ["//tools/build_defs:embed_text.py"],
        visibility = ["//visibility:private"],
    )
    native.cc_library(
        name = name,
        hdrs = [header],
        **kwargs
    )
