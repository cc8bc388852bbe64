"""Reads of the CUDA device mask whose value only fills a log or names a logger (analyzer/context/logged_reads.py),
reached through DisplaySites.cosmetic for DEV201 on small parsed snippets. The cases are the round 26 audit's (A1
row 35, B1 rows 10 and 15, B2 rows 35 and 48) and their counterparts where the value selects a device."""

from __future__ import annotations

import pytest
from ascend_feasibility.analyzer.context.display import DisplaySites
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.knowledge import load_context_conventions

from tests.snippets import node_at

CONVENTIONS = load_context_conventions()
MASK = '"CUDA_VISIBLE_DEVICES"'
RULE = "DEV201"


def cosmetic(code: str, occurrence: int = 0, rule: str = RULE):
    found = DisplaySites(CONVENTIONS.guards).cosmetic(node_at(code, MASK, occurrence), rule, "CUDA_VISIBLE_DEVICES")
    if found is None:
        return None
    assert found.reach == "cosmetic"
    return parsing.text(found.node).splitlines()[0]


LOGGER_NAME = (
    "import logging, os\n"
    "def init_logger(name, log_dir):\n"
    f"    if {MASK} in os.environ:\n"
    f"        name = name + '_GPU' + os.environ[{MASK}]\n"
    "    logger = logging.getLogger(name)\n"
    "    log_file = os.path.join(log_dir, name + '.log')\n"
    "    logger.addHandler(logging.FileHandler(log_file))\n"
    "    return logger\n"
)

DETECT_GPU = (
    "import os\n"
    "def detect_gpu(logger):\n"
    f"    if {MASK} not in os.environ:\n"
    "        logger.info('CUDA_VISIBLE_DEVICES not set, fallback')\n"
    "    else:\n"
    f"        gpu_id = os.environ[{MASK}]\n"
    "        logger.info(f'ENV: CUDA_VISIBLE_DEVICES = {gpu_id}')\n"
)


def test_the_rule_is_read_from_the_conventions():
    assert RULE in CONVENTIONS.guards.log_read_rules
    assert "getLogger" in CONVENTIONS.guards.logger_name_calls
    assert cosmetic(LOGGER_NAME, occurrence=1, rule="DEV004") is None  # a rule of no environment variable


def test_a_guarded_read_that_only_names_a_logger_and_its_file_is_cosmetic():
    assert cosmetic(LOGGER_NAME, occurrence=1) == f"os.environ[{MASK}]"


def test_the_membership_test_whose_arm_only_names_a_logger_is_cosmetic():
    assert cosmetic(LOGGER_NAME, occurrence=0) == f"if {MASK} in os.environ:"


def test_a_read_in_the_else_of_not_in_that_only_feeds_a_log_line_is_cosmetic():
    assert cosmetic(DETECT_GPU, occurrence=1) == f"os.environ[{MASK}]"
    assert cosmetic(DETECT_GPU, occurrence=0) == f"if {MASK} not in os.environ:"


def test_a_get_with_a_default_only_logged_is_cosmetic_without_a_guard():
    code = f"import os\ndef report(logger):\n    logger.info('mask %s', os.environ.get({MASK}, 'unset'))\n"
    assert cosmetic(code) == f"os.environ.get({MASK}, 'unset')"
    code = f"import os\nmask = os.getenv({MASK})\nprint(f'mask {{mask}}')\n"
    assert cosmetic(code) == f"os.getenv({MASK})"


def test_an_unguarded_subscript_raises_where_the_mask_is_unset():
    code = f"import os\ndef report(logger):\n    gpu_id = os.environ[{MASK}]\n    logger.info(f'ENV: {{gpu_id}}')\n"
    assert cosmetic(code) is None
    wrong_arm = (f"import os\ndef report(logger):\n    if {MASK} not in os.environ:\n"
                 f"        logger.info(os.environ[{MASK}])\n")
    assert cosmetic(wrong_arm, occurrence=1) is None


@pytest.mark.parametrize("use", [
    "torch.cuda.set_device(int(gpu))",  # selects the device
    "device = torch.device(f'cuda:{gpu}')",  # a device string kept
    "subprocess.run(cmd, env={'CUDA_VISIBLE_DEVICES': gpu})",  # a child's environment
    "self.gpu = gpu",  # stored on an object: used anywhere
])
def test_a_value_that_reaches_a_device_choice_stays(use):
    code = (f"import os\ndef pin(self, logger):\n    if {MASK} in os.environ:\n        gpu = os.environ[{MASK}]\n"
            f"        logger.info(f'using {{gpu}}')\n        {use}\n")
    assert cosmetic(code, occurrence=1) is None
    assert cosmetic(code, occurrence=0) is None  # the test's arm does more than log


def test_a_device_string_returned_stays():
    code = f"import os\ndef device():\n    gpu = os.environ.get({MASK}, '0')\n    return f'cuda:{{gpu}}'\n"
    assert cosmetic(code) is None
