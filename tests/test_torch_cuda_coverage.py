"""Every public name of the installed torch's torch.cuda (and its public submodules) is classified."""

import importlib
import pkgutil
import types

import pytest
from ascend_feasibility.knowledge import load_knowledge

torch = pytest.importorskip("torch")


def public_torch_cuda_names() -> set[str]:
    import torch.cuda

    modules = ["torch.cuda"] + [
        f"torch.cuda.{info.name}" for info in pkgutil.iter_modules(torch.cuda.__path__) if not info.name.startswith("_")
    ]
    names = set()
    for module_name in modules:
        module = importlib.import_module(module_name)
        exported = getattr(module, "__all__", None)
        if exported is None:  # a module without __all__: the public names it defines itself
            exported = [
                n for n in dir(module)
                if not n.startswith("_")
                and not isinstance(getattr(module, n), types.ModuleType)
                and getattr(getattr(module, n), "__module__", "").startswith(module_name)
            ]
        names.update(f"{module_name}.{n}" for n in exported)
    return names


def test_every_public_torch_cuda_name_is_classified():
    table = load_knowledge().torch_cuda_api
    missing = sorted(public_torch_cuda_names() - set(table))
    assert not missing, f"{len(missing)} torch.cuda names have no entry in knowledge/device/torch_cuda_api.toml: {missing}"


def test_the_table_is_not_trivially_small():
    assert len(public_torch_cuda_names()) > 150


def test_npu_names_exist_in_torch_npu_all_of_the_newest_release():
    kb = load_knowledge()
    newest = kb.profiles["v2.12.0-26.1.0"]
    for name, entry in kb.torch_cuda_api.items():
        if entry.npu and entry.npu.count(".") == 2 and not entry.alias:
            short = entry.npu.split(".")[-1]
            if name.startswith("torch.cuda.amp."):
                assert short in newest.amp_all, name
