"""Installs into a conda environment a shell script makes for its own tool and removes again
(analyzer/reading/script_environments.py): they are in that environment's group, and the dependency rules place such a
line optional (domains/dependencies/project.py declared_optional), not counted as the project's environment (round 39
A1 class 1, A2 class 1, B1 class 2: mmaction2's tools/data/*/download_videos.sh)."""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import manifests, parsing
from ascend_feasibility.domains.dependencies.project import declared_optional


def installs(script: str) -> list[tuple[str, int, str]]:
    declared, _ = manifests.parse_install_commands("tools/data/x/download.sh", parsing.parse("bash", script.encode()))
    return [(d.name, d.line, d.group) for d in declared]


DOWNLOAD = """#!/usr/bin/env bash
conda env create -f environment.yml
source activate activitynet
pip install --upgrade youtube-dl
pip install mmcv
python download.py
source deactivate activitynet
conda remove -n activitynet --all
"""


def test_an_install_in_a_created_activated_and_removed_environment_is_in_its_group():
    assert installs(DOWNLOAD) == [("youtube-dl", 4, "throwaway-env:activitynet"),
                                  ("mmcv", 5, "throwaway-env:activitynet")]


def test_an_install_after_the_deactivation_is_the_scripts_plain_install():
    script = DOWNLOAD.replace("python download.py\n", "python download.py\nsource deactivate\npip install torch\n")
    assert installs(script)[-1] == ("torch", 8, "main")


def test_conda_activate_and_env_remove_spellings():
    script = "conda create -n tool python=3.7\nconda activate tool\npip install mmcv\nconda env remove -n tool\n"
    assert installs(script)[1:] == [("mmcv", 3, "throwaway-env:tool")]


def test_an_environment_the_script_keeps_is_the_projects():
    # an install script creating and activating the project's environment (no removal): its pins are the project's
    script = "conda create -n proj python=3.8\nconda activate proj\npip install torch mmcv\npython train.py\n"
    assert installs(script) == [("python", 1, "main"), ("torch", 3, "main"), ("mmcv", 3, "main")]


def test_activating_an_environment_the_script_does_not_create_is_the_projects():
    # removal alone is no throwaway: the script did not make the environment it activates
    script = "source activate base\npip install mmcv\nconda remove -n base --all\n"
    assert installs(script) == [("mmcv", 2, "main")]


def test_a_throwaway_install_is_placed_optional_with_its_reason():
    declared, _ = manifests.parse_install_commands("tools/data/x/download.sh", parsing.parse("bash", DOWNLOAD.encode()))
    place = declared_optional(declared[1])
    assert place is not None and place.reach == "optional"
    assert "'activitynet'" in place.reason and "removes" in place.reason
    assert declared_optional(manifests.parse_install_commands(
        "install.sh", parsing.parse("bash", b"pip install mmcv\n"))[0][0]) is None


def test_a_removal_before_the_creation_resets_the_projects_environment():
    # PointNeXt install.sh:23-29: `conda env remove --name openpoints` then `conda create -n openpoints`: a clean
    # slate for the environment the project keeps, so torch-scatter installed into it is the project's (round 41 V-2)
    script = ("conda deactivate\nconda env remove --name openpoints\nconda create -n openpoints -y python=3.7\n"
              "conda activate openpoints\npip install torch-scatter\n")
    assert installs(script)[-1] == ("torch-scatter", 5, "main")


def test_a_removal_after_a_reset_and_creation_still_throws_the_environment_away():
    script = ("conda env remove -n tool\nconda create -n tool python=3.7\nconda activate tool\npip install mmcv\n"
              "conda env remove -n tool\n")
    assert ("mmcv", 4, "throwaway-env:tool") in installs(script)


def test_removing_an_environment_the_script_did_not_create_throws_nothing_away():
    script = "conda create -n proj python=3.8\nconda activate other\npip install mmcv\nconda env remove -n other\n"
    assert ("mmcv", 3, "main") in installs(script)
