"""A CUDA device mask written only when unset (domains/device/mask_guards.py): the test that only guards the write
is part of the write's DEV201 item, and the identity list 0..N-1 written so is low (round 35 B1 class 7, A1 class 5)."""

from __future__ import annotations

from tests.helpers import scan

LAUNCHER = ("import subprocess\ndef local_run(args, env, cmd):\n    if \"CUDA_VISIBLE_DEVICES\" not in env:\n"
            "        env[\"CUDA_VISIBLE_DEVICES\"] = {value}\n    subprocess.Popen(cmd, env=env)\n")


def _dev201(source: str) -> dict[int, object]:
    return {f.line: f for f in scan(source, "python").findings if f.rule == "DEV201"}


def test_the_guard_of_its_own_write_is_one_item_with_it():
    found = _dev201(LAUNCHER.format(value='",".join(map(str, range(args.num_gpus)))'))
    assert sorted(found) == [4]
    assert found[4].severity == "low" and "changes nothing" in found[4].message.en


def test_a_subset_written_when_unset_stays_medium():
    found = _dev201(LAUNCHER.format(value='"2,3"'))
    assert sorted(found) == [4] and found[4].severity == "medium"


def test_a_list_comprehension_and_a_literal_identity_are_identity_lists():
    for value in ('",".join([str(d) for d in range(0, n)])', '"0,1,2,3"'):
        assert _dev201(LAUNCHER.format(value=value))[4].severity == "low", value


def test_a_lone_zero_pins_one_card():
    assert _dev201(LAUNCHER.format(value='"0"'))[4].severity == "medium"


def test_a_guard_whose_body_does_more_is_kept():
    source = ("import os\nif \"CUDA_VISIBLE_DEVICES\" not in os.environ:\n    os.environ[\"CUDA_VISIBLE_DEVICES\"] = \"0\"\n"
              "    print(\"defaulted\")\n")
    assert sorted(_dev201(source)) == [2, 3]


def test_a_guard_of_another_mapping_is_kept():
    source = ("import os\ndef f(env):\n    if \"CUDA_VISIBLE_DEVICES\" not in os.environ:\n"
              "        env[\"CUDA_VISIBLE_DEVICES\"] = \"0\"\n")
    assert sorted(_dev201(source)) == [3, 4]


def test_a_guard_with_an_else_is_kept():
    source = ("import os\nif \"CUDA_VISIBLE_DEVICES\" not in os.environ:\n    os.environ[\"CUDA_VISIBLE_DEVICES\"] = \"0\"\n"
              "else:\n    print(os.environ[\"CUDA_VISIBLE_DEVICES\"])\n")
    assert 2 in _dev201(source)


BOUND = '''import os
import logging

logger = logging.getLogger(__name__)


def setup_gpus(gpus):
    gpu_ids = [i.strip() for i in gpus.split(',') if i != '']
    visible_devices = os.getenv('CUDA_VISIBLE_DEVICES')
    if visible_devices is None:
        os.environ["CUDA_DEVICE_ORDER"] = "PCI_BUS_ID"
        os.environ["CUDA_VISIBLE_DEVICES"] = ','.join(str(i) for i in gpu_ids)
        visible_devices = os.getenv('CUDA_VISIBLE_DEVICES')
        logger.warning(f'set CUDA_VISIBLE_DEVICES: {visible_devices}')
    else:
        logger.warning('CUDA_VISIBLE_DEVICES already set')
    return len(gpu_ids)
'''


def test_a_read_bound_to_a_name_that_only_guards_its_own_write_is_one_item_with_it():
    # LoFTR src/utils/misc.py:55-63 (round 38 B2 class 3): the read at line 9 is part of the write at line 12
    found = _dev201(BOUND)
    assert 9 not in found and 12 in found


def test_a_bound_read_used_after_the_guard_or_an_arm_doing_more_is_kept():
    assert 9 in _dev201(BOUND.replace("    return len(gpu_ids)", "    return visible_devices"))
    assert 9 in _dev201(BOUND.replace("        logger.warning('CUDA_VISIBLE_DEVICES already set')",
                                      "        gpu_ids = visible_devices.split(',')"))
    assert 9 in _dev201(BOUND.replace("        logger.warning(f'set", "        torch.cuda.set_device(0)\n        logger.warning(f'set"))
