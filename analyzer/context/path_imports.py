"""Imports that reach a module through a folder the importer puts on sys.path: votenet's train.py writes
`sys.path.append(os.path.join(ROOT_DIR, 'models'))` and then `from ap_helper import ...`, finding models/ap_helper.py;
models/votenet.py writes `sys.path.append(BASE_DIR)` (its own folder) and then `from voting_module import
VotingModule`. Neither folder has an __init__.py, so no dotted name reaches these modules and only the path edit
explains the import. The folder counts when the importer edits sys.path and writes its last name as a word, or when it
is the importer's own folder (a file putting its own folder on sys.path imports its siblings by their stems)."""

from __future__ import annotations

from collections import defaultdict
from pathlib import PurePosixPath
from typing import TYPE_CHECKING

from ascend_feasibility.analyzer.context.vendored import PATH_EDITS
from ascend_feasibility.analyzer.context.written_names import writes_word

if TYPE_CHECKING:
    from collections.abc import Callable

    from ascend_feasibility.domains.base import ModuleFacts


def sys_path_importers(facts: list[ModuleFacts], counted: Callable[[str], bool]) -> dict[str, set[str]]:
    """path → the files (those `counted` keeps) that import it by its name from a folder they put on sys.path."""
    paths = {f.path for f in facts}
    folders: dict[str, set[str]] = defaultdict(set)  # a folder's last name → the folders of that name
    for path in paths:
        folder = PurePosixPath(path).parent
        if folder.name:
            folders[folder.name].add(str(folder))
    result: dict[str, set[str]] = defaultdict(set)
    for f in facts:
        if not f.imports or not PATH_EDITS.intersection(f.dotted_words) or not counted(f.path):
            continue
        own = str(PurePosixPath(f.path).parent)
        on_path = {own} | {folder for name, named in folders.items() if writes_word(f.words, name) for folder in named}
        for name in f.imports:
            parts = name.split(".")
            for folder in on_path:
                base = "" if folder == "." else folder + "/"
                for end in range(len(parts), 0, -1):  # the longest prefix naming a file of the folder
                    candidate = base + "/".join(parts[:end]) + ".py"
                    if candidate in paths and candidate != f.path:
                        result[candidate].add(f.path)
                        break
    return result
