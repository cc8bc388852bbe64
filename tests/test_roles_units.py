"""A file's role from its path (analyzer/context/roles.py), against the shipped conventions
(knowledge/context conventions [roles]): each expectation read from file_role's order of tests and the convention
lists."""

from __future__ import annotations

import pytest
from ascend_feasibility.analyzer.context import roles
from ascend_feasibility.knowledge import load_context_conventions

CONVENTIONS = load_context_conventions().roles


@pytest.fixture(autouse=True)
def _fresh_derived(monkeypatch):
    """Each test compiles the conventions itself, not from a cache an earlier caller filled."""
    monkeypatch.setattr(roles, "_DERIVED", {})


def role(path: str, overrides=None, beside_package: bool = False) -> str:
    return roles.file_role(path, CONVENTIONS, overrides, beside_package)


@pytest.mark.parametrize("path, expected", [
    # test folders anywhere above the file, in any case; the file's own name is no folder
    ("tests/a.py", "test"), ("pkg/Tests/deep/a.py", "test"), ("pkg/unit_tests/a.txt", "test"), ("tests.py", "product"),
    ("pkg/tests", "product"),
    # test file names
    ("conftest.py", "test"), ("pkg/Conftest.py", "test"), ("pkg/testing_utils.py", "test"), ("test_utils.py", "test"),
    # test prefixes and suffixes, on .py and .ipynb only
    ("pkg/test_model.py", "test"), ("pkg/TEST_model.py", "test"), ("nb/test_run.ipynb", "test"),
    ("pkg/model_test.py", "test"), ("pkg/model_tests.py", "test"), ("pkg/test_model.txt", "product"),
    ("pkg/model_test.cu", "product"), ("pkg/test_model.PY", "product"), ("pkg/attest.py", "product"),
    ("pkg/contest_x.py", "product"),
    # docs, ci, examples
    ("docs/conf.py", "docs"), ("pkg/Doc/x.py", "docs"), ("docs/tests/x.py", "test"), ("docs/examples/x.py", "docs"),
    (".github/workflows/ci.yml", "ci"), (".travis.yml", "ci"), ("Jenkinsfile", "ci"), ("x/.gitlab-ci.yml", "ci"),
    ("ci/examples/run.py", "ci"), ("docs/.github/x.py", "docs"),
    ("examples/train.py", "example"), ("pkg/Benchmarks/run.py", "example"), ("examples/setup.py", "example"),
    # an example word as a folder's word part (split at _ - .) makes an example of a notebook, script or manifest
    # there (mmaction2's projects/stad_tutorial/demo_stad.ipynb), never of a Python module: a product package may
    # carry the word (diffusers' pipelines/paint_by_example/, a `tutorials_lib` package product code imports)
    ("projects/stad_tutorial/demo_stad.ipynb", "example"), ("docs_x/tutorial-zh/run.sh", "example"),
    ("demo_notebooks/a.ipynb", "example"), ("Demo.Notebooks/requirements.txt", "example"),
    ("pipelines/paint_by_example/pipeline.py", "product"), ("tutorials_lib/core.py", "product"),
    ("demographics/a.ipynb", "product"), ("stad_tutorials_x/setup.py", "build"),
    # top-level tool folders (Python only), environment reports anywhere
    ("scripts/convert.py", "example"), ("Scripts/convert.ipynb", "example"), ("utils/print_env.py", "example"),
    ("pkg/scripts/convert.py", "product"), ("scripts/run.sh", "product"), ("scripts.py", "product"),
    ("scripts/setup.py", "example"),
    ("requirements/collect_env_details.py", "example"), ("pkg/Collect_Env.py", "example"),
    ("pkg/collect_env.sh", "product"), ("pkg/collect_env.ipynb", "product"),
    # build files
    ("setup.py", "build"), ("pkg/CMakeLists.txt", "build"), ("requirements-dev.txt", "build"),
    ("Dockerfile", "build"), ("docker/Dockerfile.cuda", "build"), ("pyproject.toml", "build"),
    ("mysetup.py", "product"), ("pkg/model.py", "product"), ("model.cu", "product"),
    # conda environment files and their variants, as the manifest reader names them (round 38: RAFT-Stereo's
    # environment.yaml and environment_cuda11.yaml, one role); a module or another YAML file keeps its role
    ("environment.yaml", "build"), ("environment_cuda11.yaml", "build"), ("envs/environment-gpu.yml", "build"),
    ("conda.yml", "build"), ("environment.py", "product"), ("configs/model.yaml", "product"),
])
def test_role_by_path(path, expected):
    assert role(path) == expected


@pytest.mark.parametrize("path, beside, expected", [
    ("train_copy.py", True, "example"), ("demo_app.py", True, "example"), ("Example_x.ipynb", True, "example"),
    ("train_copy.py", False, "product"), ("tools2/train_copy.py", True, "product"), ("train.py", True, "product"),
    ("train_copy.sh", True, "product"), ("requirements_train.txt", True, "build"),
])
def test_root_scripts_beside_a_package_are_examples(path, beside, expected):
    assert role(path, beside_package=beside) == expected


def test_the_projects_own_globs_win():
    overrides = {"example": ["gen/*.py"], "product": ["tests/fixtures/*"]}
    assert role("gen/a.py", overrides) == "example"
    assert role("tests/fixtures/a.py", overrides) == "product"
    assert role("tests/a.py", overrides) == "test"
    assert role("gen/a.txt", overrides) == "product"
    # the first role whose glob matches
    assert role("x.py", {"docs": ["*.py"], "test": ["x.py"]}) == "docs"
    assert role("x.py", {"docs": ["y.py", "z.py"], "test": ["q.py", "x.py"]}) == "test"
    assert role("x.py", {}) == "product"


def test_path_view_reads_each_piece():
    view = roles.path_view("pkg/sub/model.tar.gz")
    assert view == roles.PathView(("pkg", "sub", "model.tar.gz"), "model.tar.gz", "model.tar", ".gz", "pkg/sub")
    assert roles.path_view("top.py") == roles.PathView(("top.py",), "top.py", "top", ".py", ".")


def test_derived_builds_once_per_source_object():
    calls = []

    def build(source):
        calls.append(source)
        return len(calls)

    first, second = [1], [1]
    assert roles.derived(first, build) == 1
    assert roles.derived(first, build) == 1
    assert roles.derived(second, build) == 2  # an equal but distinct object is another source
    assert roles.derived(first, build) == 1
    assert calls == [[1], [1]]
    other = lambda source: "other"  # noqa: E731 - another build of the same source
    assert roles.derived(first, other) == "other"


def test_derived_rebuilds_when_an_id_is_reused(monkeypatch):
    source = object()
    stale = object()
    monkeypatch.setitem(roles._DERIVED, (id(source), repr), (stale, "stale"))
    assert roles.derived(source, repr) == repr(source)


@pytest.mark.parametrize("paths, expected", [
    (["pkg/__init__.py"], True), (["src/pkg/__init__.py"], True), (["a.py", "pkg/__init__.py"], True),
    (["a/b/__init__.py"], False), (["src/a/b/__init__.py"], False), (["__init__.py"], False),
    (["lib/src/__init__.py"], False), (["pkg/my__init__.py"], False), (["pkg/__init__.pyi"], False),
    (["a.py", "b/c.py"], False), ([], False), (["src/__init__.py"], True),
])
def test_a_root_package_is_one_at_the_top_or_under_src(paths, expected):
    assert roles.has_root_package(paths) is expected


def test_a_root_script_is_product_unless_the_caller_says_a_package_is_beside_it():
    assert roles.file_role("train_copy.py", CONVENTIONS) == "product"
    assert roles.file_role("train_copy.py", CONVENTIONS, None, True) == "example"
