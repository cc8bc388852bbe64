"""DEP054: a torch-family version read by slicing its string, where the reading misreads the target's version
(round 35 verdicts V-8: Deformable-DETR util/misc.py `float(torchvision.__version__[:3]) < 0.5`)."""

from __future__ import annotations

from ascend_feasibility.domains.dependencies.removed_torch_apis import target_release, target_version
from ascend_feasibility.domains.dependencies.version_slices import misreading, versioned_packages
from packaging.version import Version

from tests.helpers import scan

TORCHVISION_TARGET = "0.27.0"  # packages.toml torch_pairs: torch 2.12 pairs with torchvision 0.27


def test_the_target_versions_come_from_the_release_pairs():
    assert target_version("torch", "2.12.0") == "2.12.0"
    assert target_version("torchvision", "2.12.0") == TORCHVISION_TARGET
    assert target_version("torchaudio", "2.12.0") == "2.11.1"
    assert target_version("numpy", "2.12.0") is None
    assert target_release("torchvision", "2.12.0") == Version("0.27")
    assert {"torch", "torchvision", "torchaudio"} <= versioned_packages()


def test_a_two_digit_minor_is_read_as_its_first_digit():
    # "0.27.0"[:3] is "0.2": below 0.5 and 0.7 as a float, though 0.27 is newer than both
    assert misreading(slice(0, 3), "float", "<", (0.5, "0.5"), TORCHVISION_TARGET) == ("0.2", True)
    assert misreading(slice(0, 3), "float", "<", (0.7, "0.7"), TORCHVISION_TARGET) == ("0.2", True)
    # torch "2.12.0"[:3] is "2.1": `>= 2.2` is False although 2.12 is newer than 2.2
    assert misreading(slice(0, 3), "float", ">=", (2.2, "2.2"), "2.12.0") == ("2.1", False)
    # one character for the minor digit: "2.12.0"[2] is "1"
    assert misreading(2, "int", ">=", (8, "8"), "2.12.0") == ("1", False)


def test_a_reading_that_agrees_with_the_versions_is_no_misreading():
    assert misreading(slice(0, 3), "float", ">=", (1.7, "1.7"), "2.12.0") is None
    assert misreading(0, None, "==", ("2", "2"), "2.12.0") is None
    assert misreading(slice(0, 3), None, "==", ("1.4", "1.4"), "2.12.0") is None
    # "0.27" as a float is 0.27 < 0.5 too, but the literal 0.5 < 0.27 as versions: still a misreading
    assert misreading(slice(0, 4), "float", "<", (0.5, "0.5"), TORCHVISION_TARGET) == ("0.27", True)
    # a slice long enough on a one-digit minor reads right
    assert misreading(slice(0, 3), "float", "<", (0.5, "0.5"), "0.8.1") is None


def test_a_conversion_that_raises_is_a_misreading():
    # "0.27.0"[:5] is "0.27.", which float() refuses
    assert misreading(slice(0, 5), "float", "<", (0.5, "0.5"), TORCHVISION_TARGET) == ("'0.27.'", None)


def test_each_misreading_comparison_of_a_file_is_a_site():
    source = (
        "import torchvision\n"
        "if float(torchvision.__version__[:3]) < 0.5:\n"
        "    from torchvision.ops import _new_empty_tensor\n"
        "elif float(torchvision.__version__[:3]) < 0.7:\n"
        "    from torchvision.ops.misc import _output_size\n"
        "def interpolate(x):\n"
        "    if float(torchvision.__version__[:3]) < 0.7:\n"
        "        return x\n"
    )
    found = [f for f in scan(source).findings if f.rule == "DEP054"]
    assert [f.line for f in found] == [2, 4, 7]
    assert all(f.severity == "high" for f in found)
    assert "reads 0.2" in found[0].message.en
    assert 'Version(torchvision.__version__) < Version("0.5")' in found[0].replacement.en
