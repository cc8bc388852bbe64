"""Source roots a build maps packages into (analyzer/reading/config.py: pyproject [tool.setuptools] package-dir,
setup.cfg [options] package_dir): a namespace package directly in one (no __init__.py, imported as `<name>.<child>`)
is a package whose modules resolve by their installed names, as under src/ (analyzer/context/unloaded.py)."""

from __future__ import annotations

from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze
from ascend_feasibility.analyzer.reading.config import load_project_config, package_dir_roots

TREE = {  # F5-TTS's shape (tests/test_unloaded_units.py src_namespace) under lib/: lib/f5/ has no __init__.py
    "requirements.txt": "torch==2.3.1\n",
    "lib/f5/api.py": "from f5.infer.utils_infer import load\n\n\ndef tts():\n    return load()\n",
    "lib/f5/model/__init__.py": "from f5.model.modules import Block\n",
    "lib/f5/model/modules.py": (
        "import torch\n\n\nclass Block(torch.nn.Module):\n    def forward(self, x):\n        return x.cuda()\n"),
    "lib/f5/infer/utils_infer.py": "import torch\nfrom f5.model import Block\n\n\ndef load():\n    return Block()\n",
    "lib/f5/infer/infer_cli.py": (
        "import torch\nfrom f5.infer.utils_infer import load\n\n\ndef main():\n    with torch.inference_mode():\n"
        "        return load()(torch.ones(2))\n\n\nif __name__ == '__main__':\n    main()\n"),
}


def _write(root, files):
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def test_package_dir_mappings_give_the_folders_packages_sit_in():
    assert package_dir_roots([("", "lib")]) == ["lib"]
    assert package_dir_roots([("", "./python/src/")]) == ["python/src"]
    assert package_dir_roots([("f5", "lib/f5"), ("g", "lib/g")]) == ["lib"]
    # the root itself, a package renamed by its folder, a subpackage, absolute or climbing folders: no root
    assert package_dir_roots([("", "."), ("f5", "lib/other"), ("f5.model", "lib/f5/model"), ("", "/abs"),
                              ("", "../up"), ("f5", "f5"), (1, "lib")]) == []


def test_pyproject_and_setup_cfg_package_dirs_are_read(tmp_path):
    _write(tmp_path / "p", {"pyproject.toml": '[project]\nname = "f5"\n[tool.setuptools.package-dir]\n"" = "lib"\n'})
    assert load_project_config(tmp_path / "p").source_roots == ["lib"]
    _write(tmp_path / "c", {"setup.cfg": "[metadata]\nname = f5\n[options]\npackage_dir =\n    =python\n"})
    assert load_project_config(tmp_path / "c").source_roots == ["python"]
    _write(tmp_path / "n", {"setup.cfg": "[options]\npackages = find:\n", "pyproject.toml": "[project]\nname = 'x'\n"})
    assert load_project_config(tmp_path / "n").source_roots == []
    _write(tmp_path / "bad", {"setup.cfg": "[options\npackage_dir = =lib\n"})
    assert load_project_config(tmp_path / "bad").source_roots == []


def test_a_namespace_package_in_a_package_dir_root_is_loaded_through_its_installed_name(tmp_path):
    mapped = analyze(_write(tmp_path / "mapped", {**TREE, "pyproject.toml": (
        '[project]\nname = "f5"\n[tool.setuptools.package-dir]\n"" = "lib"\n')}), AnalyzeOptions(jobs=1))
    assert [f.reach for f in mapped.findings if f.path == "lib/f5/model/modules.py"] == ["runs"]
    # the same tree without the mapping: lib/f5/ is no package, and nothing loads `lib.f5.model`
    plain = analyze(_write(tmp_path / "plain", {**TREE, "pyproject.toml": '[project]\nname = "f5"\n'}),
                    AnalyzeOptions(jobs=1))
    assert [f.reach for f in plain.findings if f.path == "lib/f5/model/modules.py"] == ["optional"]
