"""Rewrite tests/golden/*.json from the current analyzer. Review the diff by hand before committing."""

from tests.golden_format import GOLDEN, dump, expected_view, golden_path, sample_names

if __name__ == "__main__":
    GOLDEN.mkdir(exist_ok=True)
    for name in sample_names():
        golden_path(name).write_text(dump(expected_view(name)), encoding="utf-8")
        print(f"wrote {golden_path(name)}")
