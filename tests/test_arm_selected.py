"""A CUDA extension imported in a try that ignores its ImportError, whose every use sits in definitions the project
names only in the arm of a declared option choice nothing shipped selects, is optional with the switch named
(analyzer/context/arm_selected.py): RAFT-Stereo's corr_sampler, `try: import corr_sampler` / `except: pass` in
core/corr.py:5-8, used by CorrSampler and CorrBlockFast1D, picked by core/raft_stereo.py:96-97 under
`--corr_implementation reg_cuda` with the default "reg" (round 38 A1 class 1, B2 class 1)."""

from __future__ import annotations

from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze

from tests.helpers import write_tree

CORR = '''import torch

try:
    import corr_sampler
except:
    pass


class CorrSampler(torch.autograd.Function):
    @staticmethod
    def forward(ctx, volume, coords, radius):
        corr, = corr_sampler.forward(volume, coords, radius)
        return corr


class CorrBlockFast1D:
    def __call__(self, volume, coords):
        return CorrSampler.apply(volume, coords, 4)


class CorrBlock1D:
    def __call__(self, volume, coords):
        return torch.gather(volume, 1, coords)
'''
MODEL = '''import torch
from core.corr import CorrBlock1D, CorrBlockFast1D


class Model(torch.nn.Module):
    def __init__(self, args):
        super().__init__()
        self.args = args

    def forward(self, volume, coords):
        if self.args.corr_implementation == "reg":
            block = CorrBlock1D
        elif self.args.corr_implementation == "reg_cuda":
            block = CorrBlockFast1D
        return block()(volume, coords)
'''
TRAIN = '''import argparse

from core.model import Model

parser = argparse.ArgumentParser()
parser.add_argument('--corr_implementation', choices=["reg", "reg_cuda"], default="reg")
args = parser.parse_args()
Model(args)
'''
SETUP = '''from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension

setup(name='corr_sampler', ext_modules=[CUDAExtension('corr_sampler', ['sampler.cpp', 'sampler_kernel.cu'])],
      cmdclass={'build_ext': BuildExtension})
'''
BINDING = '''#include <torch/extension.h>
std::vector<torch::Tensor> sampler_cuda_forward(torch::Tensor volume, torch::Tensor coords, int radius);
std::vector<torch::Tensor> sampler_forward(torch::Tensor volume, torch::Tensor coords, int radius) {
  return sampler_cuda_forward(volume, coords, radius);
}
PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("forward", &sampler_forward, "sampler forward");
}
'''
KERNEL = '''#include <torch/extension.h>
#include <cuda.h>
#include <cuda_runtime.h>

__global__ void sampler_forward_kernel(const float* volume, float* corr, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) corr[i] = volume[i];
}

std::vector<torch::Tensor> sampler_cuda_forward(torch::Tensor volume, torch::Tensor coords, int radius) {
  auto corr = torch::zeros_like(volume);
  sampler_forward_kernel<<<1, 256>>>(volume.data_ptr<float>(), corr.data_ptr<float>(), volume.numel());
  return {corr};
}
'''


def _kernel_and_build(tmp_path, **more):
    files = {"requirements.txt": "torch\n", "core/__init__.py": "", "core/corr.py": CORR, "core/model.py": MODEL,
             "train.py": TRAIN, "sampler/setup.py": SETUP, "sampler/sampler.cpp": BINDING,
             "sampler/sampler_kernel.cu": KERNEL, **more}
    write_tree(tmp_path, {k: v for k, v in files.items() if v is not None})
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    kernel = next(f for f in report.findings if f.path == "sampler/sampler_kernel.cu" and f.rule == "OPS001")
    build = next(f for f in report.findings if f.path == "sampler/setup.py" and f.rule == "OPS020")
    return (kernel.reach, kernel.reach_reason), (build.reach, build.reach_reason)


def test_an_extension_only_an_unselected_choice_reaches_is_optional_with_the_switch_named(tmp_path):
    kernel, build = _kernel_and_build(tmp_path)
    assert kernel == build
    assert kernel == ("optional", 'corr_sampler is imported in a try that ignores its ImportError (core/corr.py:4) and '
                                  'used only by CorrBlockFast1D, CorrSampler, which the project names only in an arm '
                                  'nothing shipped selects: core/model.py:14, `--corr_implementation` is "reg" unless '
                                  'given (train.py:6), and no launch script passes "reg_cuda"; line 13: elif '
                                  'self.args.corr_implementation == "reg_cuda":')


def test_a_launcher_selecting_the_choice_keeps_the_extension(tmp_path):
    kernel, _ = _kernel_and_build(tmp_path, **{"run.sh": "python train.py --corr_implementation reg_cuda\n"})
    assert kernel[0] == "runs"


def test_a_use_outside_the_arm_keeps_the_extension(tmp_path):
    kernel, _ = _kernel_and_build(tmp_path / "a", **{"core/model.py": MODEL.replace(
        "        return block()(volume, coords)", "        return CorrBlockFast1D()(volume, coords)")})
    assert kernel[0] == "runs"
    # the caught module's file uses a definition at module level
    kernel, _ = _kernel_and_build(tmp_path / "b", **{"core/corr.py": CORR + "\nDEFAULT = CorrBlockFast1D\n"})
    assert kernel[0] == "runs"


def test_a_default_taking_the_choice_or_a_whole_module_import_keeps_the_extension(tmp_path):
    kernel, _ = _kernel_and_build(tmp_path / "a", **{"train.py": TRAIN.replace('default="reg"', 'default="reg_cuda"')})
    assert kernel[0] == "runs"
    whole = "import core.corr\n\n\ndef pick():\n    return core.corr.CorrBlockFast1D\n"
    kernel, _ = _kernel_and_build(tmp_path / "b", **{"core/other.py": whole})
    assert kernel[0] == "runs"
