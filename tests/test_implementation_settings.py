"""A CUDA setting test that only picks a class (domains/device/implementation_settings.py, round 34 B2 class 4): the
value is compared or printed and nothing else, and the CUDA arm builds a class another arm replaces."""

from __future__ import annotations

import pytest
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.domains.device.implementation_settings import picked_class

NAFNET = ("def train(opt, loader, logger):\n    prefetch_mode = opt['datasets']['train'].get('prefetch_mode')\n"
          "    if prefetch_mode is None or prefetch_mode == 'cpu':\n        prefetcher = CPUPrefetcher(loader)\n"
          "    elif prefetch_mode == 'cuda':\n        prefetcher = data.CUDAPrefetcher(loader, opt)\n"
          "        logger.info(f'Use {prefetch_mode} prefetch dataloader')\n    else:\n"
          "        raise ValueError(f'Wrong prefetch_mode {prefetch_mode}.')\n    return prefetcher\n")


def _test_node(code: str):
    root = parsing.parse("python", code.encode())
    start = code.index("== 'cuda'")
    node = root.descendant_for_byte_range(start, start + 2)
    while node.type != "comparison_operator":
        node = node.parent
    return node


def test_a_setting_that_only_picks_a_class_names_the_class():
    assert picked_class(_test_node(NAFNET)) == "CUDAPrefetcher"


@pytest.mark.parametrize("change", [
    ("CUDAPrefetcher(loader, opt)", "CUDAPrefetcher(loader, device=prefetch_mode)"),  # handed to a call
    ("    return prefetcher\n", "    return prefetcher, prefetch_mode\n"),  # returned
    ("CUDAPrefetcher(loader, opt)", "CPUPrefetcher(loader, opt)"),  # the same class in both arms: no choice
    ("prefetcher = data.CUDAPrefetcher(loader, opt)", "loader = loader.cuda()"),  # no class built
])
def test_a_value_used_otherwise_or_no_class_choice_is_not_one(change):
    assert picked_class(_test_node(NAFNET.replace(*change))) is None
