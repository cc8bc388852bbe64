"""Modules of the project's packages that nothing the product runs loads (analyzer/context/unloaded.py), on plain
facts: each file's module, imports, launches and strings written in the test, roles given by hand. Each expectation is
read from the module's docstring; tests/test_unloaded_modules.py runs the same through whole analyses."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest
from ascend_feasibility.analyzer.context import unloaded as u
from ascend_feasibility.analyzer.context.project import FileContext, ProjectContext
from ascend_feasibility.domains.phases.facts import module_name

ONLY_TESTS = "imported only by tests ({}): no product code loads it"
IN_TESTS_PACKAGE = "in {}/, a package imported only by tests ({}): no product code loads it"
BESIDE = "imported by nothing the scripts beside {}/ load: no product code loads it"


@dataclass
class Facts:
    path: str
    imports: list[str] = field(default_factory=list)
    main_guard: bool = False
    top_level_code: bool = True  # a file outside the packages is read as a script unless a test says otherwise
    main_demo: bool = False
    evidence: dict[str, int] = field(default_factory=dict)
    dotted_words: list[str] = field(default_factory=list)
    launched_scripts: list[str] = field(default_factory=list)
    module_strings: list[tuple[str, int]] = field(default_factory=list)
    lazy_submodules: list[str] = field(default_factory=list)
    lazy_names: list[tuple[str, str]] = field(default_factory=list)
    nested_imports: list[str] = field(default_factory=list)
    plugin_tables: list[list[str]] = field(default_factory=list)
    loads_by_name: bool = False
    commented_imports: list[tuple[str, int]] = field(default_factory=list)
    words: str = ""  # identifier-like words between spaces (build files: find_namespace_packages)
    module: str = ""

    def __post_init__(self):
        self.module = self.module or module_name(self.path)


def context(facts: list[Facts], roles: dict[str, str] | None = None, reach: dict[str, str] | None = None):
    roles = roles or {}
    reach = reach or {}
    files = {}
    for f in facts:
        role = roles.get(f.path, "test" if f.path.startswith("tests/") else "product")
        if role != "product" or f.path in reach:
            files[f.path] = FileContext(role, reach.get(f.path, "runs"))
    return ProjectContext(files=files)


def unloaded(facts, roles=None, reach=None, console=()):
    return u.unloaded_modules(facts, context(facts, roles, reach), console)


def nanotron() -> list[Facts]:
    return [
        Facts("run_train.py", ["mylib.trainer.train", "mylib.registry"]),
        Facts("run_train.sh", launched_scripts=["mylib/serve.py"], module=""),
        Facts("mylib/__init__.py"),
        Facts("mylib/trainer.py"),
        Facts("mylib/fp8/__init__.py", ["mylib.fp8.linear.FP8Linear"]),
        Facts("mylib/fp8/linear.py"),
        Facts("mylib/fp8/utils.py"),  # nothing imports it, inside a subpackage only tests load
        Facts("mylib/convert.py", main_guard=True),
        Facts("mylib/serve.py"),
        Facts("mylib/cli.py"),
        Facts("mylib/public_api.py"),  # a library's module nothing imports: its users may
        Facts("mylib/strings.py"),
        Facts("mylib/registry.py", module_strings=[("mylib.strings.fn", 3)]),
        Facts("pyproject.toml", module=""),  # publishes mylib: its users may import any module of it
        Facts("tests/__init__.py"),
        Facts("tests/fp8/test_linear.py", ["mylib.fp8.FP8Linear"]),
        Facts("tests/test_rest.py", ["mylib.convert", "mylib.serve", "mylib.cli", "mylib.trainer.train",
                                     "mylib.strings", "mylib.registry"]),
    ]


def test_modules_only_tests_load_are_optional_and_the_rest_run():
    assert unloaded(nanotron(), console=("mylib.cli",)) == {
        "mylib/fp8/__init__.py": ("optional", ONLY_TESTS.format("tests/fp8/test_linear.py")),
        "mylib/fp8/linear.py": ("optional", ONLY_TESTS.format("tests/fp8/test_linear.py")),
        "mylib/fp8/utils.py": ("optional", IN_TESTS_PACKAGE.format("mylib/fp8", "tests/fp8/test_linear.py")),
    }


@pytest.mark.parametrize("path, change", [
    ("mylib/convert.py", {"main_guard": False}),  # an entry point by its main guard
    ("mylib/serve.py", "unlaunched"),  # launched by a shell script
    ("mylib/cli.py", "no console"),  # a console entry
    ("mylib/strings.py", "unnamed"),  # named in a string of product code
])
def test_each_kind_of_entry_keeps_its_module_running(path, change):
    facts = nanotron()
    console = ("mylib.cli",)
    for f in facts:
        if f.path == path and isinstance(change, dict):
            f.main_guard = change["main_guard"]
        if change == "unlaunched" and f.path == "run_train.sh":
            f.launched_scripts = []
        if change == "unnamed" and f.path == "mylib/registry.py":
            f.module_strings = []
    if change == "no console":
        console = ()
    result = unloaded(facts, console=console)
    assert result[path] == ("optional", ONLY_TESTS.format("tests/test_rest.py"))
    assert set(result) == {"mylib/fp8/__init__.py", "mylib/fp8/linear.py", "mylib/fp8/utils.py", path}


def test_a_launched_script_is_matched_by_its_file_name():
    facts = nanotron()
    facts[1].launched_scripts = ["./other/serve.py"]
    assert "mylib/serve.py" not in unloaded(facts, console=("mylib.cli",))


def test_a_lazy_loader_table_names_its_submodules():
    facts = nanotron()
    facts[12].module_strings = []
    facts[12].lazy_submodules = ["mylib.strings"]
    assert "mylib/strings.py" not in unloaded(facts, console=("mylib.cli",))
    facts[12].lazy_submodules = ["mylib"]  # a prefix of the module's name names nothing of it
    assert "mylib/strings.py" in unloaded(facts, console=("mylib.cli",))


def test_strings_of_test_code_name_nothing():
    facts = nanotron()
    facts[12].module_strings = []
    facts[-1].module_strings = [("mylib.strings", 1)]
    assert "mylib/strings.py" in unloaded(facts, console=("mylib.cli",))
    # a build file is product code: its strings count
    facts.append(Facts("build.py", module_strings=[("mylib.strings", 1)]))
    assert "mylib/strings.py" not in unloaded(facts, {"build.py": "build"}, console=("mylib.cli",))


def test_only_counted_running_python_modules_are_made_optional():
    facts = nanotron()
    assert "mylib/fp8/linear.py" not in unloaded(facts, {"mylib/fp8/linear.py": "example"}, console=("mylib.cli",))
    assert "mylib/fp8/linear.py" not in unloaded(facts, reach={"mylib/fp8/linear.py": "other-backend"},
                                                   console=("mylib.cli",))
    facts = nanotron()
    facts[5] = Facts("mylib/fp8/linear.pyx", module="mylib.fp8.linear")
    assert "mylib/fp8/linear.pyx" not in unloaded(facts, console=("mylib.cli",))
    facts = nanotron()
    facts[5].module = ""
    assert "mylib/fp8/linear.py" not in unloaded(facts, console=("mylib.cli",))


def test_a_build_file_is_a_root_and_an_example_too():
    facts = nanotron()
    for role in ("build", "example"):
        facts_with = facts + [Facts("tools/fp8_demo.py", ["mylib.fp8.linear"])]
        assert "mylib/fp8/linear.py" not in unloaded(facts_with, {"tools/fp8_demo.py": role}, console=("mylib.cli",))
    docs = facts + [Facts("tools/fp8_demo.py", ["mylib.fp8.linear"])]
    assert "mylib/fp8/linear.py" in unloaded(docs, {"tools/fp8_demo.py": "docs"}, console=("mylib.cli",))


def test_a_product_module_importing_a_tests_only_module_makes_it_live():
    facts = nanotron()
    facts[3].imports = ["mylib.fp8.utils"]
    result = unloaded(facts, console=("mylib.cli",))
    assert "mylib/fp8/utils.py" not in result
    # and the package __init__ it passes through runs, so linear.py is loaded by it
    assert "mylib/fp8/linear.py" not in result


def test_an_other_backend_importer_is_still_an_edge():
    # reach is read only for the module itself: whoever imports it makes it loaded
    facts = nanotron()
    facts[3].imports = ["mylib.fp8.utils"]
    result = unloaded(facts, reach={"mylib/trainer.py": "other-backend"}, console=("mylib.cli",))
    assert "mylib/fp8/utils.py" not in result


def test_a_src_layout_package_is_read_by_its_import_name():
    facts = [Facts("src/mylib/__init__.py"), Facts("src/mylib/core.py"), Facts("src/mylib/fp8/__init__.py"),
             Facts("src/mylib/fp8/kernel.py"), Facts("train.py", ["mylib.core.x"]),
             Facts("tests/test_fp8.py", ["mylib.fp8.kernel.x", "mylib.core.x"])]
    assert unloaded(facts) == {"src/mylib/fp8/__init__.py": ("optional", ONLY_TESTS.format("tests/test_fp8.py")),
                               "src/mylib/fp8/kernel.py": ("optional", ONLY_TESTS.format("tests/test_fp8.py"))}


def rife() -> list[Facts]:
    return [
        Facts("app/server.py", ["rife_model"]),
        Facts("app/rife_model.py", ["rife.RIFE_HDv3.Model"]),
        Facts("app/rife/__init__.py"),
        Facts("app/rife/RIFE_HDv3.py", ["app.rife.warplayer.warp"]),
        Facts("app/rife/warplayer.py"),
        Facts("app/rife/RIFE.py", ["app.rife.refine"]),  # nothing imports it
        Facts("app/rife/refine.py", ["app.rife.warplayer.warp"]),  # only RIFE.py imports it
    ]


def test_an_application_package_module_its_scripts_never_reach_is_optional():
    reason = ("optional", BESIDE.format("app/rife"))
    assert unloaded(rife()) == {"app/rife/RIFE.py": reason, "app/rife/refine.py": reason}


def test_a_package_beside_scripts_only_at_the_top_or_under_src_is_a_librarys():
    for top in ("", "src/"):
        facts = [Facts(top + f.path[len("app/"):]) for f in rife()] + [Facts("setup.py", module="")]
        for new, old in zip(facts, rife(), strict=False):
            new.imports = [i.replace("app.", "src." if top else "") for i in old.imports]
        assert unloaded(facts) == {}, top


def test_a_top_package_no_build_file_publishes_is_its_scripts_own():
    """Show-o's models/ and training/: no setup.py, setup.cfg or pyproject.toml anywhere, so no user outside the
    project imports the package, and what its scripts never reach is optional, re-exports or not."""
    facts = [Facts(f.path[len("app/"):]) for f in rife()]
    for new, old in zip(facts, rife(), strict=True):
        new.imports = [i.replace("app.", "") for i in old.imports]
    facts[2].imports = ["rife.RIFE_HDv3.Model"]  # rife/__init__.py re-exports a name: the package still is no library
    why = ("optional", "imported by nothing the scripts of rife/ load, a package no setup.py, setup.cfg or "
                       "pyproject.toml publishes, so no user outside the project imports it: no product code loads it")
    assert unloaded(facts) == {"rife/RIFE.py": why, "rife/refine.py": why}
    assert unloaded(facts + [Facts("pyproject.toml", module="")]) == {}  # a build file may publish it
    bench = Facts("rife/bench.py", main_guard=True, main_demo=True)  # a `__main__` smoke test nothing launches
    assert "rife/bench.py" in unloaded(facts + [bench])
    assert "rife/bench.py" not in unloaded(facts + [bench, Facts("run.sh", module="", launched_scripts=["rife/bench.py"])])
    for live in (Facts("rife/bench.py", main_guard=True),  # a main block of its own program
                 Facts("rife/bench.py", main_guard=True, main_demo=True, evidence={"training": 2})):  # it trains
        assert "rife/bench.py" not in unloaded(facts + [live])


def copy(*extra: Facts) -> list[Facts]:
    """CodeFormer's layout: a copy of BasicSR (basicsr/ with its own setup.py, an API-publishing __init__.py) beside
    the application's scripts, which import its archs; its ops/upfirdn2d module is imported by nothing."""
    return [Facts("lib/setup.py", module=""), Facts("lib/__init__.py", ["lib.archs", "lib.ops"]),
            Facts("lib/archs/__init__.py", ["lib.archs.net"]), Facts("lib/archs/net.py"), Facts("lib/ops/__init__.py"),
            Facts("lib/ops/up/__init__.py"), Facts("lib/ops/up/up.py"), Facts("infer.py", ["lib.archs.net.Net"]),
            *extra]


def test_a_library_copy_whose_build_file_sits_inside_it_is_the_applications_own():
    # round 24 B1 C2, B2 C1: basicsr/setup.py inside the copy made it a published library whose every module is API
    why = ("optional", "imported by nothing the scripts of lib/ load, a package no setup.py, setup.cfg or "
                       "pyproject.toml publishes, so no user outside the project imports it: no product code loads it")
    assert unloaded(copy()) == {"lib/ops/up/up.py": why, "lib/ops/up/__init__.py": why}


@pytest.mark.parametrize("build", ["setup.py", "pyproject.toml"])
def test_a_library_copy_a_build_file_at_the_root_may_publish_keeps_its_modules(build):
    assert unloaded(copy(Facts(build, module=""))) == {}


def test_a_library_copy_nothing_of_the_project_imports_keeps_its_modules():
    assert unloaded([f for f in copy() if f.path != "infer.py"]) == {}


def test_a_tests_only_module_beside_scripts_says_tests():
    facts = rife() + [Facts("tests/test_rife.py", ["app.rife.RIFE"])]
    assert unloaded(facts) == {"app/rife/RIFE.py": ("optional", ONLY_TESTS.format("tests/test_rife.py")),
                               "app/rife/refine.py": ("optional", ONLY_TESTS.format("tests/test_rife.py"))}


def test_scripts_beside_a_package_are_product_scripts_only():
    facts = rife()
    result = unloaded(facts, {"app/server.py": "example", "app/rife_model.py": "example"})
    assert result == {}  # no product script beside the package: a library's, whose users may import RIFE.py


def kern(*extra: Facts) -> list[Facts]:
    return [Facts("setup.py"), Facts("kern/__init__.py"), Facts("kern/ops.py"),
            Facts("tests/test_ops.py", ["kern.ops.x"]), *extra]


def test_a_library_no_entry_point_drives_keeps_what_only_its_tests_import():
    assert unloaded(kern(), {"setup.py": "build"}) == {}
    driven = kern(Facts("train.py", ["kern.core"]), Facts("kern/core.py"))
    assert unloaded(driven, {"setup.py": "build"}) == {"kern/ops.py": ("optional", ONLY_TESTS.format("tests/test_ops.py"))}
    publishing = kern(Facts("train.py", ["kern.core"]), Facts("kern/core.py"))
    publishing[1].imports = ["kern.core"]
    assert unloaded(publishing, {"setup.py": "build"}) == {}
    elsewhere = kern(Facts("train.py", ["kern.core"]), Facts("kern/core.py"), Facts("other/__init__.py"))
    elsewhere[1].imports = ["other"]  # importing another package publishes nothing of its own
    assert unloaded(elsewhere, {"setup.py": "build"}) == {
        "kern/ops.py": ("optional", ONLY_TESTS.format("tests/test_ops.py"))}


def test_the_top_package_imported_by_a_driven_root_is_no_driver_of_its_own():
    # only roots that are not a top package's __init__.py drive it
    facts = kern(Facts("kern/core.py"))
    facts[1].imports = []
    facts.append(Facts("kern/sub/__init__.py", ["kern.core"]))
    assert unloaded(facts, {"setup.py": "build"}) == {}


# helpers -------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("path, module, packages, expected", [
    ("a/b/c.py", "a.b.c", {"a", "a/b"}, {"a.b.c"}),
    ("a/b/c.py", "a.b.c", {"a/b"}, {"a.b.c", "b.c"}),
    ("a/b/__init__.py", "a.b", {"a/b"}, {"a.b", "b"}),
    ("a/b/__init__.py", "a.b", {"a", "a/b"}, {"a.b"}),
    ("x/y.py", "x.y", set(), {"x.y", "y"}),
    ("y.py", "y", set(), {"y"}),
    ("c.py", "c", {"."}, {"c"}),
    ("a/c.py", "a.c", {".", "a"}, {"a.c"}),
    ("x/__init__.py", "x", set(), {"x"}),
    ("src/p/q/r.py", "src.p.q.r", {"src/p", "src/p/q"}, {"src.p.q.r", "p.q.r"}),
    # a folder without __init__.py inside a package is a namespace package under it (round 18: a kernel package's
    # triton_kernels/ folder, imported as `kern_ops.triton_kernels.sla`)
    ("k/python/kern_ops/triton_kernels/sla.py", "k.python.kern_ops.triton_kernels.sla", {"k/python/kern_ops"},
     {"k.python.kern_ops.triton_kernels.sla", "sla", "kern_ops.triton_kernels.sla"}),
    ("r/p/a/c.py", "r.p.a.c", {"r/p"}, {"r.p.a.c", "c", "p.a.c"}),
    # three folders without __init__.py between the file and the package: no namespace name
    ("p/a/b/d/c.py", "p.a.b.d.c", {"p"}, {"p.a.b.d.c", "c"}),
])
def test_import_names(path, module, packages, expected):
    assert u.import_names(path, module, packages) == expected


BY_NAME = {"a": {"a/__init__.py"}, "a.b": {"a/b/__init__.py"}, "a.b.c": {"a/b/c.py"}, "b.c": {"a/b/c.py"},
           "x": {"x.py", "y/x.py"}}


@pytest.mark.parametrize("imports, expected", [
    (["a.b.c.fn"], {"a/__init__.py", "a/b/__init__.py", "a/b/c.py"}),
    (["a.b.c"], {"a/__init__.py", "a/b/__init__.py", "a/b/c.py"}),
    (["a.b.zz"], {"a/__init__.py", "a/b/__init__.py"}),
    (["a"], {"a/__init__.py"}),
    (["b.c.d"], {"a/b/c.py"}),  # "b" itself is no module: nothing above
    (["zz.a"], set()),
    (["x.f", "zz"], {"x.py", "y/x.py"}),
    ([], set()),
])
def test_targets(imports, expected):
    assert u._targets(imports, BY_NAME) == expected


def test_reach_is_breadth_first_and_keeps_the_first_start():
    edges = {"s1": {"a"}, "a": {"b"}, "b": {"c"}, "s2": {"c", "d"}, "c": {"s1"}}
    assert u._reach(["s1", "s2"], edges) == {"s1": "s1", "s2": "s2", "a": "s1", "c": "s2", "d": "s2", "b": "s1"}
    # every start is its own origin, and the queue takes them in the order given
    assert u._reach(["s2", "s1"], edges) == {"s2": "s2", "s1": "s1", "a": "s1", "c": "s2", "d": "s2", "b": "s1"}
    chain = {"s": {"x"}, "x": {"y"}, "t": {"y"}}
    assert u._reach(["s", "t"], chain) == {"s": "s", "t": "t", "x": "s", "y": "t"}  # breadth first: t reaches y first
    assert u._reach([], edges) == {}
    assert u._reach(["lone"], edges) == {"lone": "lone"}


def test_named_prefixes_of_product_strings_and_lazy_tables():
    facts = [Facts("p.py", module_strings=[("a.b.c", 1), ("d", 2)], lazy_submodules=["e.f"]),
             Facts("tests/t.py", module_strings=[("t.u", 1)], lazy_submodules=["v.w"])]
    assert u._named_prefixes(facts, context(facts)) == {"a", "a.b", "a.b.c", "d", "e", "e.f"}
    assert u._named_prefixes(facts, context(facts, {"p.py": "example"})) == set()


@pytest.mark.parametrize("path, root, top", [
    ("a/b/c.py", ".", "a"), ("a/b/__init__.py", ".", "a"), ("a/__init__.py", ".", "a"),
    ("src/a/b/c.py", "src", "src/a"), ("x/y.py", "x", "x"), ("app/a/b.py", "app", "app/a"),
    ("top.py", ".", "."),
])
def test_package_root_and_top_folder(path, root, top):
    packages = {"a", "a/b", "src/a", "src/a/b", "app/a"}
    assert u._package_root(path, packages) == root
    assert u.top_folder(path, packages) == top


def test_package_root_stops_at_the_analysed_folder():
    assert u._package_root("a/b.py", {".", "a"}) == "."
    assert u.top_folder("a/b.py", {".", "a"}) == "a"
    assert u.top_folder("b.py", {"."}) == "."


@pytest.mark.parametrize("path, expected", [
    ("a/__init__.py", True), ("a/b/__init__.py", False), ("src/a/__init__.py", True), ("a/c.py", False),
    ("x/__init__.py", False), ("app/a/__init__.py", True),
])
def test_top_package(path, expected):
    assert u._top_package(path, {"a", "a/b", "src/a", "app/a"}) is expected


def test_tests_only_package_is_the_nearest_one():
    packages = {"a", "a/b", "a/b/c"}
    assert u._tests_only_package("a/b/c/m.py", packages, {"a/b/__init__.py"}) == "a/b/__init__.py"
    assert u._tests_only_package("a/b/c/m.py", packages, {"a/b/__init__.py", "a/b/c/__init__.py"}) == "a/b/c/__init__.py"
    assert u._tests_only_package("a/m.py", packages, {"a/b/__init__.py"}) is None
    assert u._tests_only_package("x/m.py", packages, {"x/__init__.py"}) is None
    assert u._tests_only_package("m.py", packages | {"."}, {"./__init__.py", "__init__.py"}) is None


def test_a_subpackage_product_code_loads_is_no_tests_only_package():
    facts = nanotron()
    facts[3].imports = ["mylib.fp8"]  # the trainer loads mylib/fp8/__init__.py (and so linear.py); tests do too
    result = unloaded(facts, console=("mylib.cli",))
    assert "mylib/fp8/utils.py" not in result and "mylib/fp8/__init__.py" not in result
    assert "mylib/fp8/linear.py" not in result


def src_namespace() -> list[Facts]:
    """F5-TTS's shape: src/f5/ has no __init__.py (PEP 420), its model/ subpackage has one, and the scripts beside
    it import `f5.model` once the project is installed."""
    return [
        Facts("src/f5/api.py", ["f5.infer.utils_infer.load"]),
        Facts("src/f5/model/__init__.py", ["f5.model.cfm.CFM"]),
        Facts("src/f5/model/cfm.py", ["f5.model.modules.Block"]),
        Facts("src/f5/model/modules.py"),
        Facts("src/f5/infer/utils_infer.py", ["f5.model.CFM"]),
        Facts("src/f5/infer/infer_cli.py", ["f5.infer.utils_infer.load"], main_guard=True),
    ]


def test_a_namespace_package_under_src_is_a_package_its_imports_resolve_in():
    facts = src_namespace()
    assert {"src/f5", "src/f5/model", "src/f5/infer"} <= u.package_folders(facts)
    assert u.import_names("src/f5/model/modules.py", "src.f5.model.modules", u.package_folders(facts)) >= {
        "f5.model.modules"}
    assert unloaded(facts) == {}  # the model core is loaded through `f5.model`, not "imported by nothing"


def test_a_folder_under_src_no_import_names_is_no_namespace_package():
    facts = src_namespace()
    for f in facts:  # the scripts import their siblings by bare names: src/f5/ is never imported as `f5`
        f.imports = [name.removeprefix("f5.") for name in f.imports]
    assert "src/f5" not in u.package_folders(facts)
    facts = [*src_namespace(), Facts("src/tools/run.py", ["tools_helper.x"]), Facts("src/tools/sub/m.py")]
    assert "src/tools" not in u.package_folders(facts)  # `tools.sub` is imported nowhere


COMMENTED = "its only import, {}, is commented out: nothing imports it"
FOLDER = "in {}/, whose only import, {}, is commented out: nothing imports it"
THROUGH = "loaded only through {}, whose only import, {}, is commented out: nothing imports it"


def retiring_library() -> list[Facts]:
    """A library whose __init__.py publishes an API (its users may import any module), with a copied model file and
    an encoder folder whose only imports its own code has commented out."""
    return [
        Facts("train.py", ["lib.model.Model"], main_guard=True),
        Facts("lib/__init__.py", ["lib.model.Model"]),
        Facts("lib/model.py", ["transformers.LlamaModel", "lib.encoders.builder.build"],
              commented_imports=[("lib.modeling_llama", 27), ("lib.modeling_llama.LlamaModel", 27)]),
        Facts("lib/modeling_llama.py", ["lib.llama_utils.rotate"]),
        Facts("lib/llama_utils.py"),  # only the retired module imports it
        Facts("lib/public_api.py"),  # nothing imports it and no comment names it: its users may
        Facts("lib/encoders/__init__.py"),
        Facts("lib/encoders/builder.py", commented_imports=[("lib.encoders.dev.eva_vit", 10),
                                                            ("lib.encoders.dev.eva_vit.EvaViT", 10)]),
        Facts("lib/encoders/dev/__init__.py"),
        Facts("lib/encoders/dev/eva_vit.py", ["lib.encoders.dev.clip.model.Clip"]),
        Facts("lib/encoders/dev/clip/__init__.py"),
        Facts("lib/encoders/dev/clip/model.py", ["lib.encoders.dev.clip.rope.Rope"]),
        Facts("lib/encoders/dev/clip/rope.py"),
        Facts("lib/encoders/dev/clip/openai.py"),  # nothing imports it, inside the retired folder
        Facts("pyproject.toml", module=""),  # publishes lib: its users may import any module of it
    ]


def test_a_module_whose_only_import_is_commented_out_is_optional_even_in_a_library():
    folder = FOLDER.format("lib/encoders/dev", "lib/encoders/builder.py:10")
    assert unloaded(retiring_library()) == {
        "lib/modeling_llama.py": ("optional", COMMENTED.format("lib/model.py:27")),
        "lib/llama_utils.py": ("optional", THROUGH.format("lib/modeling_llama.py", "lib/model.py:27")),
        "lib/encoders/dev/__init__.py": ("optional", folder),
        "lib/encoders/dev/eva_vit.py": ("optional", COMMENTED.format("lib/encoders/builder.py:10")),
        "lib/encoders/dev/clip/__init__.py": ("optional", folder),
        "lib/encoders/dev/clip/model.py": ("optional", folder),
        "lib/encoders/dev/clip/rope.py": ("optional", folder),
        "lib/encoders/dev/clip/openai.py": ("optional", folder),
    }


def test_a_live_import_beside_the_commented_one_keeps_the_module_running():
    facts = retiring_library()
    facts[2].imports.append("lib.modeling_llama.LlamaModel")  # imported by a live file as well
    facts[7].imports.append("lib.encoders.dev.clip.rope.Rope")  # the builder loads one module of the folder itself
    result = unloaded(facts)
    assert "lib/modeling_llama.py" not in result and "lib/llama_utils.py" not in result
    # the folder is live now; the module the comment names is still imported by nothing, and so retired
    assert sorted(path for path in result if path.startswith("lib/encoders/dev/")) == [
        "lib/encoders/dev/clip/model.py", "lib/encoders/dev/eva_vit.py"]
    assert result["lib/encoders/dev/eva_vit.py"] == ("optional", COMMENTED.format("lib/encoders/builder.py:10"))


@pytest.mark.parametrize("change", ["test", "other package", "itself", "folder's own file", "top package", "string"])
def test_comments_that_do_not_retire_a_module(change):
    facts = retiring_library()
    comment = facts[2].commented_imports
    facts[2].commented_imports = []
    if change == "test":  # a test's comments say nothing of the product
        facts.append(Facts("tests/test_model.py", commented_imports=comment))
    elif change == "other package":  # another package's comment is no word of the library's own
        facts += [Facts("other/__init__.py"), Facts("other/use.py", commented_imports=comment)]
    elif change == "itself":
        facts[3].commented_imports = comment
    elif change == "folder's own file":  # a comment inside a subpackage says nothing of the subpackage
        facts[7].commented_imports = []
        facts[9].commented_imports = [("lib.encoders.dev.clip.model", 4)]
        assert not [path for path in unloaded(facts) if path.startswith("lib/encoders/dev/")]
    elif change == "top package":  # a comment naming a module below the package names the package too
        facts[1].imports = []
        facts[0].imports = []
        facts[2].commented_imports = [("lib.gone", 3)]
        assert "lib/__init__.py" not in unloaded(facts)
        return
    elif change == "string":  # a string of product code names it: loaded by name, and so is what it imports
        facts[2].commented_imports = comment
        facts[2].module_strings = [("lib.modeling_llama", 5)]
        assert "lib/llama_utils.py" not in unloaded(facts)
    assert "lib/modeling_llama.py" not in unloaded(facts)


def lib_namespace() -> list[Facts]:
    """src_namespace's shape under lib/, a folder the build's package-dir maps the packages into (`"" = "lib"`)."""
    return [Facts(f.path.replace("src/", "lib/", 1), f.imports, f.main_guard) for f in src_namespace()]


def test_a_namespace_package_under_a_package_dir_root_is_a_package_its_imports_resolve_in():
    facts = lib_namespace()
    roots = ("src", "lib")
    assert {"lib/f5", "lib/f5/model", "lib/f5/infer"} <= u.package_folders(facts, roots)
    assert u.import_names("lib/f5/model/modules.py", "lib.f5.model.modules", u.package_folders(facts, roots)) >= {
        "f5.model.modules"}
    lib = ProjectContext(source_roots=roots)
    assert u.unloaded_modules(facts, lib) == {}  # the model core is loaded through `f5.model`
    # without the mapping lib/ is a folder like any other: lib/f5/ is no package, its model core is unloaded
    assert "lib/f5" not in u.package_folders(facts)
    assert "lib/f5/model/modules.py" in u.unloaded_modules(facts, ProjectContext())
    # a root of several folders (`"" = "python/src"`)
    deep = [Facts(f.path.replace("lib/", "python/src/", 1), f.imports, f.main_guard) for f in facts]
    assert "python/src/f5" in u.package_folders(deep, ("src", "python/src"))
    assert "python/src/f5" not in u.package_folders(deep, ("src", "python"))
