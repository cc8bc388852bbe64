"""Rewrite the golden files (tests/golden/*.json and tests/golden/formats/) from the current analyzer.
Review the diff by hand before committing."""

from tests.golden_format import GOLDEN, dump, expected_view, format_golden_dir, format_outputs, golden_path, sample_names

if __name__ == "__main__":
    GOLDEN.mkdir(exist_ok=True)
    for name in sample_names():
        golden_path(name).write_text(dump(expected_view(name)), encoding="utf-8")
        print(f"wrote {golden_path(name)}")
        folder = format_golden_dir(name)
        folder.mkdir(parents=True, exist_ok=True)
        for filename, content in format_outputs(name).items():
            (folder / filename).write_text(content, encoding="utf-8", newline="")
        print(f"wrote {folder}")
