"""Copies of one module (analyzer/context/module_copies.py): a copy that every importer of its dotted name resolves to
another file, from the folder the importer runs in, is not loaded: its findings are optional, "shadowed by" the copy
loaded. A copy an importer in its own folder loads, a copy named by its full dotted name and a copy that is an entry
of its own keep `runs`."""

from __future__ import annotations

from ascend_feasibility.analyzer.context.module_copies import loaded_copy
from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze

from tests.helpers import reported_at, write_tree
from tests.test_unloaded_modules import CUDA

COPIES = ["utils/tokenizer.py", "models/tts/debatts/utils/tokenizer.py"]


def _reach_by_path(root) -> dict[str, set[tuple[str, str | None]]]:
    found: dict[str, set[tuple[str, str | None]]] = {}
    for f in analyze(root, AnalyzeOptions(jobs=1)).findings:
        for path in reported_at(f):
            found.setdefault(path, set()).add((f.reach, f.reach_reason))
    return found


def _tree(debatts_script: str) -> dict[str, str]:
    return {
        "utils/__init__.py": "",
        "utils/tokenizer.py": CUDA + "def extract():\n    return x\n",
        "processors/acoustic_extractor.py": "from utils.tokenizer import extract\nextract()\n",
        "models/__init__.py": "",
        "models/tts/__init__.py": "",
        "models/tts/valle/__init__.py": "",
        "models/tts/valle/valle_trainer.py": "from utils.tokenizer import extract\n",
        "models/tts/debatts/utils/__init__.py": "",
        "models/tts/debatts/utils/tokenizer.py": CUDA + "def extract(codec=None):\n    return x\n",  # differs
        "models/tts/debatts/utils/g2p_new.py": "def g2p():\n    return 1\n",
        "models/tts/debatts/infer.py": debatts_script,
    }


def test_a_copy_every_importer_resolves_elsewhere_is_shadowed(tmp_path):
    write_tree(tmp_path, _tree("from utils.g2p_new import g2p\nif __name__ == '__main__':\n    g2p()\n"))
    reach = _reach_by_path(tmp_path)
    assert {r for r, _ in reach["utils/tokenizer.py"]} == {"runs"}
    (why,) = {w for r, w in reach["models/tts/debatts/utils/tokenizer.py"] if r == "optional"}
    assert why.startswith("shadowed by utils/tokenizer.py: every import of utils.tokenizer")
    assert "models/tts/valle/valle_trainer.py" in why and "processors/acoustic_extractor.py" in why


def test_a_copy_a_script_in_its_own_root_imports_runs(tmp_path):
    write_tree(tmp_path, _tree("from utils.tokenizer import extract\nif __name__ == '__main__':\n    extract()\n"))
    reach = _reach_by_path(tmp_path)
    assert {r for r, _ in reach["models/tts/debatts/utils/tokenizer.py"]} == {"runs"}
    assert {r for r, _ in reach["utils/tokenizer.py"]} == {"runs"}


def test_a_copy_imported_by_its_full_dotted_name_runs(tmp_path):
    tree = _tree("")
    tree["models/tts/debatts/__init__.py"] = ""  # now a regular package: models.tts.debatts.utils.tokenizer
    tree["models/tts/debatts/run.py"] = "from models.tts.debatts.utils.tokenizer import extract\nextract()\n"
    write_tree(tmp_path, tree)
    reach = _reach_by_path(tmp_path)
    assert {r for r, _ in reach["models/tts/debatts/utils/tokenizer.py"]} == {"runs"}


def test_a_copy_that_is_an_entry_of_its_own_runs(tmp_path):
    tree = _tree("")
    tree["models/tts/debatts/utils/tokenizer.py"] += "if __name__ == '__main__':\n    extract()\n"
    write_tree(tmp_path, tree)
    reach = _reach_by_path(tmp_path)
    assert {r for r, _ in reach["models/tts/debatts/utils/tokenizer.py"]} == {"runs"}


def test_the_loaded_copy_is_the_one_under_the_deepest_root_holding_the_importer():
    assert loaded_copy("utils.tokenizer", COPIES, "utils.tokenizer.extract", "models/tts/valle/t.py") == COPIES[0]
    assert loaded_copy("utils.tokenizer", COPIES, "utils.tokenizer", "models/tts/debatts/infer.py") == COPIES[1]
    assert loaded_copy("utils.tokenizer", COPIES, "utils.tokenizer", "models/tts/debatts/sub/x.py") == COPIES[1]
    assert loaded_copy("utils.tokenizer", COPIES, "models.tts.debatts.utils.tokenizer", "a.py") is None
    # no copy's root holds the importer: the copy sharing most folders with it (roles.nearest_copy)
    server = ["a/server/models/mamba.py", "b/server/models/mamba.py"]
    assert loaded_copy("server.models.mamba", server, "server.models.mamba", "b/cli.py") == server[1]
