"""A caveat for the verdict where product code imports into a git submodule the tree does not hold (round 28 V2 W1:
dust3r's training.py imports `croco.utils.misc`, mast3r's modules import `dust3r.*`, while croco/ and dust3r/ are
submodules not checked out). Their code was not scanned (analyzer/reading/submodules.py lists the folder under
Skipped), so the estimate leaves out whatever porting it needs: the verdict says so and names how many of the product's
files import into it. An import counts where its first name is the folder's own name and no folder of that name is in
the tree (where one is, the import may resolve there), or the name the folder's package is imported as
(`simple_knn` for submodules/simple-knn, round 40 4DGaussians)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import PurePosixPath

from ascend_feasibility.analyzer.core.models import Text
from ascend_feasibility.analyzer.reading.submodules import names_folder


def importers(folder: str, imports: Iterable[tuple[str, list[str]]], paths: Iterable[str],
              role_of: Callable[[str], str]) -> list[str]:
    """The product files (path, dotted imports) whose imports start with a name of the submodule folder
    (submodules.names_folder: `croco`, or `simple_knn` for submodules/simple-knn) that no folder of the tree has."""
    folders = {part for path in paths for part in PurePosixPath(path).parts[:-1]}
    return [path for path, names in imports if role_of(path) == "product"
            and any(names_folder(top, folder) and top not in folders for top in (n.split(".")[0] for n in names))]


def caveats(folders: Iterable[str], imports: list[tuple[str, list[str]]], paths: list[str],
            role_of: Callable[[str], str], priced: frozenset[str] = frozenset()) -> list[Text]:
    """One verdict driver per missing submodule that product files import into; `priced`: folders whose native
    extension the estimate counts as a custom kernel of unknown size (custom_ops/submodule_extensions.py)."""
    result = []
    for folder in folders:
        files = importers(folder, imports, paths, role_of)
        if not files:
            continue
        shown = ", ".join(files[:3]) + (f" and {len(files) - 3} more" if len(files) > 3 else "")
        name = folder.rstrip("/")
        en, zh = (("its native extension is priced as one custom kernel of unknown size (OPS098), a blocker until "
                   "its sources are read", "其原生扩展按一个规模未知的自定义内核计价（OPS098），在读取其源码之前视为阻塞项")
                  if name in priced else ("the estimate excludes its code", "估算不含其代码"))
        result.append(Text(
            en=f"{len(files)} product {'file imports' if len(files) == 1 else 'files import'} into the git submodule "
               f"{name}/ ({shown}), which is not checked out and was not scanned: {en}. "
               f"Clone with --recursive (git submodule update --init) and analyse again.",
            zh=f"{len(files)} 个产品文件从未检出的 git 子模块 {name}/ 导入（{shown}），该子模块未被扫描：{zh}。"
               f"请用 --recursive 克隆（git submodule update --init）后重新分析。"))
    return result
