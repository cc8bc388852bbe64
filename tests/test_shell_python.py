"""Python a shell script runs as a string (domains/shell_python.py): read as its own Python unit, decoded as bash
hands it over, each finding on the script's line and column, its output judged by what the script does with it."""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.analyzer.reading.source import SourceText
from ascend_feasibility.domains import shell_python

from tests.helpers import scan


def strings(script: str) -> list[shell_python.Embedded]:
    source = SourceText.from_text(script)
    return shell_python.python_strings(parsing.parse("bash", source.data), source)


def counted(script: str, language: str = "shell", name: str = "run.sh"):
    return [(f.rule, f.line, f.column, f.severity, f.migration, f.reach)
            for f in scan(script, language, path=name).findings]


# reading the string ------------------------------------------------------------------------------------------------
def test_single_and_double_quoted_code_is_decoded_as_bash_hands_it_over():
    found = strings("python -c 'import torch; print(1)'\n"
                    'python3 -c "import os; x = \\"$HOME\\"; print(\\$1, x)"\n')
    texts = [e.source.text.lstrip("\n") for e in found]
    assert texts == ["import torch; print(1)", 'import os; x = "_____"; print($1, x)']
    assert all(e.source.text.count("\n") == e.source.text.index(e.source.text.lstrip("\n")) for e in found)


def test_only_the_interpreters_c_option_is_read():
    assert strings("python train.py -c 'x'\npython -m pip -c cfg\nfoo -c 'import torch'\n") == []
    assert len(strings("/usr/bin/python3.10 -u -c 'import torch'\npython -Bc 'import torch'\n")) == 2


def test_positions_map_back_to_the_script():
    script = 'N=$(python -c "import torch; s = \\"a\\"; torch.cuda.synchronize()")\n'
    (embedded,) = strings(script)
    row, column = embedded.source.text.split("\n").index(embedded.source.text.lstrip("\n")), None
    column = embedded.source.text.split("\n")[row].index("torch.cuda")
    assert embedded.point(row, column) == (0, script.index("torch.cuda"))
    multi = "echo hi\npython -c \"\nimport torch\nx = torch.zeros(1).cuda()\n\"\n"
    (embedded,) = strings(multi)
    lines = embedded.source.text.split("\n")
    assert lines[3] == "x = torch.zeros(1).cuda()"
    assert embedded.point(3, lines[3].index(".cuda")) == (3, multi.split("\n")[3].index(".cuda"))


def test_the_use_of_the_output_is_read_from_the_script():
    uses = [e.use for e in strings(
        "python -c 'import torch; print(torch.cuda.is_available())'\n"
        "N=$(python -c 'import torch; print(torch.cuda.device_count())')\n"
        "torchrun --nproc_per_node $N train.py\n"
        "M=`python -c 'print(2)'`\n"
        "echo $M\n"
        "deepspeed --num_gpus=$(python -c 'print(3)') train.py\n")]
    assert uses == ["shown", "process_count", "captured", "process_count"]


def test_bad_input_reads_nothing_and_does_not_fail():
    assert strings('python -c "import torch\n') == []  # unterminated: bash would not run it
    assert strings("python -c 'import torch\nx\n") == []
    huge = "python -c '" + "x = 1\n" * (shell_python.MAX_CODE_BYTES // 6 + 10) + "'\n"
    assert strings(huge) == []
    assert strings("python -c $CODE\npython -c\n") == []
    assert scan('python -c "import torch; torch.cuda.synchronize()\n' + "y" * 100_000, "shell").skipped == []


# findings ----------------------------------------------------------------------------------------------------------
def test_a_device_count_passed_as_the_process_count_is_high():
    script = ('GPUS_PER_NODE=$(python -c "import torch;print(torch.cuda.device_count())")\n'
              "torchrun --nproc_per_node $GPUS_PER_NODE finetune.py\n")
    found = counted(script)
    column = script.index("torch.cuda") + 1
    assert ("DEV152", 1, column, "high", "rewrite", "runs") in found
    assert not any(rule == "DEV100" for rule, *_ in found)


def test_a_printed_check_in_an_environment_report_is_cosmetic():
    found = counted("python -c 'import torch; print(torch.cuda.is_available())'\n")
    assert [(rule, reach) for rule, _, _, _, _, reach in found] == [("DEV104", "cosmetic")]


def test_the_shim_of_the_project_does_not_reach_the_string():
    script = 'echo start\npython -c "import torch; torch.zeros(1).cuda()"\n'
    (finding,) = scan(script, "shell").findings
    column = script.split("\n")[1].index("torch.zeros") + 1
    assert (finding.rule, finding.migration, finding.line, finding.column) == ("DEV004", "rewrite", 2, column)
    assert "interpreter of its own" in finding.message.en
    (shimmed,) = scan('python -c "import torch, torch_npu; from torch_npu.contrib import transfer_to_npu; '
                      'torch.zeros(1).cuda()"\n', "shell").findings
    assert shimmed.migration == "auto"


def test_a_dockerfile_run_line_is_read_too():
    found = counted('FROM python:3.10\nRUN python -c "import torch; torch.zeros(1).cuda()"\n', "dockerfile", "Dockerfile")
    assert [(rule, line) for rule, line, *_ in found] == [("DEV004", 2)]


def test_a_suppression_on_the_scripts_line_covers_the_string():
    result = scan('python -c "import torch; torch.zeros(1).cuda()"  # ascend: ignore[DEV004]\n', "shell")
    assert [f.suppressed for f in result.findings] == [True]
    assert result.unused_suppressions == []


def test_a_count_handed_on_in_a_string_of_launcher_arguments_is_a_process_count():
    script = ("GPUS_PER_NODE=$(python -c 'import torch; print(torch.cuda.device_count())')\n"
              'DISTRIBUTED_ARGS="\n    --nproc_per_node $GPUS_PER_NODE \\\n    --nnodes 1\n"\n'
              "torchrun $DISTRIBUTED_ARGS finetune.py\n")
    assert [e.use for e in strings(script)] == ["process_count"]
    assert [e.use for e in strings(script.replace("--nproc_per_node", "--log_dir"))] == ["captured"]


def test_a_here_document_fed_to_the_interpreter_is_read():
    script = ("python - <<EOF\nimport torch\nprint(torch.cuda.device_count(), \"$HOME\")\nEOF\n"
              "python3 <<'PY' > out.txt\nimport torch\nx = torch.zeros(1).cuda()  # $literal\nPY\n"
              "cat <<EOF\nimport torch\ntorch.cuda.synchronize()\nEOF\n")
    found = strings(script)
    assert [e.source.text.split("\n")[e.source.text.count("\n", 0, e.prefix):][:2] for e in found] == [
        ["import torch", 'print(torch.cuda.device_count(), "_____")'],
        ["import torch", "x = torch.zeros(1).cuda()  # $literal"],
    ]
    result = counted(script)
    assert [(rule, line) for rule, line, *_ in result] == [("DEV100", 3), ("DEV004", 7)]
