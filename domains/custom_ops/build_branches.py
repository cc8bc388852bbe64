"""Build branches that choose the CUDA extension by availability.

`if torch.cuda.is_available() or os.getenv("FORCE_CUDA") == "1": extension = CUDAExtension` (with its sources and
include dirs), `elif ...mlu...: extension = MLUExtension`: the build picks its extension class by backend, and the
NPU needs its own arm. Reported once, at the condition of the branch that selects CUDAExtension, unless the chain
already has an NPU arm. A CUDAExtension(...) call is OPS020's; this is the branch that names the class without
calling it."""

from __future__ import annotations

from ascend_feasibility.analyzer.context.dispatch_chains import chain_arms, lacks_npu_arm, selects_cuda_extension, words
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.domains.base import Hit
from ascend_feasibility.domains.custom_ops.records import CustomOpFacts
from ascend_feasibility.domains.device.dispatch import backends_read
from ascend_feasibility.domains.python_refs import PythonDomainScanner, PythonScan

QUERY = r"""
(if_statement) @build_chain
"""


class _BuildBranchScan(PythonScan):
    QUERY = QUERY
    QUERY_ALONE = True  # its trigger is rare, and it captures every if statement

    def run(self) -> list[Hit]:
        backends = backends_read()
        for chain in self.captures().get("build_chain", []):
            for condition, body in chain_arms(chain):
                if not (words(condition) & backends.cuda and selects_cuda_extension(body)):
                    continue
                macros = _defined_macros(body)
                if macros:  # `define_macros += [("WITH_CUDA", None)]` beside `extension = CUDAExtension`
                    facts = self.unit.cache.setdefault("custom_ops", CustomOpFacts())
                    facts.cuda_macros += [(name, f"{self.unit.path}:{line}") for name, line in macros]
                if lacks_npu_arm(chain, backends.npu):
                    self.hit("cuda-extension-build-branch", " ".join(parsing.text(condition).split())[:100], condition,
                             facets=("raises",) if _else_raises(chain) else ())
                    break
        return self.hits


def _defined_macros(body) -> list[tuple[str, int]]:
    """The preprocessor macros a build arm defines: tuples of a `define_macros` list (`define_macros += [("WITH_CUDA",
    None)]`, `CUDAExtension(..., define_macros=[...])`) and `-DNAME` compiler flags; with their lines."""
    found = []
    for current in parsing.walk(body):
        if current.type == "string":
            value = _plain(current)
            if value is not None and value.startswith("-D") and len(value) > 2:
                found.append((value[2:].split("=", 1)[0], current.start_point.row + 1))
        elif current.type == "tuple" and current.named_children and _names_macros(current):
            value = _plain(current.named_children[0])
            if value is not None and value.isidentifier():
                found.append((value, current.start_point.row + 1))
    return found


def _names_macros(node) -> bool:
    """Is the tuple an item of a list assigned to, or passed as, a name with `macro` in it?"""
    current, depth = node.parent, 0
    while current is not None and depth < 4:
        if current.type in {"assignment", "augmented_assignment"}:
            return "macro" in parsing.text(current.child_by_field_name("left")).lower()
        if current.type == "keyword_argument":
            return "macro" in parsing.text(current.child_by_field_name("name")).lower()
        current, depth = current.parent, depth + 1
    return False


def _plain(node) -> str | None:
    if node.type != "string" or any(c.type == "interpolation" for c in node.named_children):
        return None
    return "".join(parsing.text(c) for c in node.named_children if c.type == "string_content")


def _else_raises(chain) -> bool:
    """The chain's `else:` arm raises before it does anything else (InternImage's ops_dcnv3/setup.py:
    `else: raise NotImplementedError('Cuda is not availabel')`): without CUDA the build stops, it builds no CPU variant."""
    other = next((c for c in chain.children_by_field_name("alternative") if c.type == "else_clause"), None)
    body = other.child_by_field_name("body") if other is not None else None
    statements = [c for c in body.named_children if c.type != "comment"] if body is not None else []
    return bool(statements) and statements[0].type == "raise_statement"


class BuildBranchScanner(PythonDomainScanner):
    domain = "custom_ops"
    triggers = ("CUDAExtension",)
    scan_class = _BuildBranchScan
