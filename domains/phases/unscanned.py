"""A caveat for the verdict where product code imports into a git submodule the tree does not hold (round 28 V2 W1:
dust3r's training.py imports `croco.utils.misc`, mast3r's modules import `dust3r.*`, while croco/ and dust3r/ are
submodules not checked out). Their code was not scanned (analyzer/reading/submodules.py lists the folder under
Skipped), so the estimate leaves out whatever porting it needs: the verdict says so and names how many of the product's
files import into it. An import counts where its first name is the folder's own name and no folder of that name is in
the tree (where one is, the import may resolve there)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import PurePosixPath

from ascend_feasibility.analyzer.core.models import Text


def importers(folder: str, imports: Iterable[tuple[str, list[str]]], paths: Iterable[str],
              role_of: Callable[[str], str]) -> list[str]:
    """The product files (path, dotted imports) whose imports start with the submodule folder's name."""
    name = PurePosixPath(folder.rstrip("/")).name
    if not name.isidentifier() or any(f"/{name}/" in f"/{path}" for path in paths):
        return []
    return [path for path, names in imports if role_of(path) == "product"
            and any(n == name or n.startswith(name + ".") for n in names)]


def caveats(folders: Iterable[str], imports: list[tuple[str, list[str]]], paths: list[str],
            role_of: Callable[[str], str]) -> list[Text]:
    """One verdict driver per missing submodule that product files import into."""
    result = []
    for folder in folders:
        files = importers(folder, imports, paths, role_of)
        if not files:
            continue
        shown = ", ".join(files[:3]) + (f" and {len(files) - 3} more" if len(files) > 3 else "")
        name = folder.rstrip("/")
        result.append(Text(
            en=f"{len(files)} product {'file imports' if len(files) == 1 else 'files import'} into the git submodule "
               f"{name}/ ({shown}), which is not checked out and was not scanned: the estimate excludes its code. "
               f"Clone with --recursive (git submodule update --init) and analyse again.",
            zh=f"{len(files)} 个产品文件从未检出的 git 子模块 {name}/ 导入（{shown}），该子模块未被扫描：估算不含其代码。"
               f"请用 --recursive 克隆（git submodule update --init）后重新分析。"))
    return result
