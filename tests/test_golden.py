"""Each sample project produces exactly its reviewed golden findings."""

import pytest

from tests.golden_format import dump, expected_view, format_golden_dir, format_outputs, golden_path, sample_names


@pytest.mark.parametrize("name", sample_names())
def test_sample_matches_golden(name):
    path = golden_path(name)
    assert path.exists(), f"no golden for {name}: run python -m tests.update_goldens and review it"
    assert dump(expected_view(name)) == path.read_text(encoding="utf-8"), (
        f"{name} differs from its golden; if intended, run python -m tests.update_goldens and review the diff"
    )


@pytest.mark.parametrize("name", sample_names())
def test_sample_formats_match_golden(name):
    folder = format_golden_dir(name)
    for filename, content in format_outputs(name).items():
        path = folder / filename
        assert path.exists(), f"no golden {path}: run python -m tests.update_goldens and review it"
        with path.open(encoding="utf-8", newline="") as handle:
            expected = handle.read()
        assert content == expected, (
            f"{name}/{filename} differs from its golden; if intended, run python -m tests.update_goldens and review the diff"
        )


def test_there_are_training_inference_and_notebook_samples():
    assert {"llm_train", "llm_infer", "notebook_finetune", "dit_train", "fused_kernels"} <= set(sample_names())
