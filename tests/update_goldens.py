"""Rewrite the golden files (tests/golden/*.json, tests/golden/formats/ and the port patches in tests/golden/port/) from the current analyzer.
Review the diff by hand before committing."""

from tests.golden_format import (
    GOLDEN,
    dump,
    expected_view,
    format_golden_dir,
    format_outputs,
    golden_path,
    port_golden_path,
    port_patch,
    sample_names,
)

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
        port_golden_path(name).parent.mkdir(exist_ok=True)
        port_golden_path(name).write_text(port_patch(name), encoding="utf-8", newline="")
        print(f"wrote {port_golden_path(name)}")
