"""The packages the setup() building an extension installs under a name other than their folder's.

Pointcept's libs/pointgroup_ops/setup.py builds `pointgroup_ops_cuda` and installs its folder functions/ as the package
`pointgroup_ops` (`packages=["pointgroup_ops"], package_dir={"pointgroup_ops": "functions"}`): the product imports the
extension's only Python importer (functions/functions.py) as `pointgroup_ops`, a name no folder of the tree bears.
Read from the `package_dir` dictionary of the setup() call whose arguments hold the extension's builder call: its
string keys (top-level packages) and string values (folders, from the setup.py's folder).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.domains.python_refs import keywords

if TYPE_CHECKING:
    from tree_sitter import Node

SETUP_CALLS = ("setup", "setuptools.setup", "distutils.core.setup")


def installed_packages(builder_call: Node) -> list[tuple[str, str]]:
    """(package, folder from the setup.py's folder) of each renamed top-level package of the setup() holding the call."""
    call = builder_call.parent
    while call is not None and not (call.type == "call" and _is_setup(call)):
        call = call.parent
    if call is None:
        return []
    mapping = keywords(call).get("package_dir")
    if mapping is None or mapping.type != "dictionary":
        return []
    found = []
    for pair in mapping.named_children:
        if pair.type != "pair":
            continue
        package, folder = _string(pair.child_by_field_name("key")), _string(pair.child_by_field_name("value"))
        if package and folder and "." not in package and folder.strip("/") not in {"", "."} \
                and folder.strip("/").rsplit("/", 1)[-1] != package:
            found.append((package, folder.strip("/")))
    return found


def _is_setup(call: Node) -> bool:
    function = call.child_by_field_name("function")
    return function is not None and parsing.text(function) in SETUP_CALLS


def _string(node: Node | None) -> str | None:
    if node is None or node.type != "string" or any(c.type == "interpolation" for c in node.named_children):
        return None
    return "".join(parsing.text(c) for c in node.named_children if c.type == "string_content")
