"""A name written only in prose (a comment, a docstring, a log/print/raise sentence) or only by tests keeps no
product symbol reached (domains/phases/prose.py, analyzer/context/unreferenced.py); a bare identifier-like string a
registry or `getattr` may read, and code, still do."""

from __future__ import annotations

from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze
from ascend_feasibility.analyzer.reading.source import SourceText
from ascend_feasibility.domains.base import Unit
from ascend_feasibility.domains.phases.prose import without_prose
from ascend_feasibility.domains.phases.symbols import read_words, unnamed_symbols

from tests.helpers import write_tree

CUDA = "        return torch.ones(1).cuda()\n"


def _unit(text: str) -> Unit:
    return Unit("m.py", "python", SourceText.from_text(text))


def _words(text: str) -> str:
    return read_words(without_prose(_unit(text)))[0]


def test_comments_docstrings_and_shown_sentences_are_no_words():
    text = ('"""Builds ModelInDoc."""\n'
            "import logging, warnings\n"
            "logger = logging.getLogger(__name__)\n"
            "def step(x):\n"
            "    '''Calls FuncInDoc.'''\n"
            "    # model = ModelInComment(opt)\n"
            "    logger.info('this is only supported by ModelInLog.')\n"
            "    print('use ModelInPrint ' + str(x))\n"
            "    warnings.warn('ModelInWarn is %s' % x)\n"
            "    raise ValueError(f'pick ModelInRaise, not {x.kind}')\n")
    words = _words(text)
    for name in ("ModelInDoc", "FuncInDoc", "ModelInComment", "ModelInLog", "ModelInPrint", "ModelInWarn",
                 "ModelInRaise"):
        assert f" {name} " not in words, name
    assert " kind " in words  # an f-string's `{...}` is code
    assert len(without_prose(_unit(text))) == len(text.encode())  # offsets kept


def test_name_strings_and_code_stay_words():
    text = ("import subprocess\n"
            "def step(opt, module):\n"
            "    net = build('ModelByName')\n"
            "    cls = getattr(module, 'ModelByGetattr')\n"
            "    logger.info('ModelAloneInLog')\n"  # no space: may be a name a registry reads
            "    subprocess.run('python -m ModelInShell --fast', shell=True)\n"  # not a shown sentence
            "    x = 'a sentence naming ModelInValue'\n"  # a value, not a message
            "    return ModelInCode(opt)\n")
    words = _words(text)
    for name in ("ModelByName", "ModelByGetattr", "ModelAloneInLog", "ModelInShell", "ModelInValue", "ModelInCode"):
        assert f" {name} " in words, name


def test_a_definition_its_own_file_names_only_in_a_comment_is_unnamed():
    text = ("class PlusPlusNet:\n    pass\n"
            "class UsedNet:\n    pass\n"
            "# model = PlusPlusNet(mid_channels=64)\n"
            "model = UsedNet()\n")
    assert [s[0] for s in unnamed_symbols(_unit(text))] == ["PlusPlusNet"]
    assert unnamed_symbols(_unit(text.replace("# model = PlusPlusNet", "model2 = PlusPlusNet"))) == []


def _application(tmp_path, extra: dict[str, str]) -> dict[int, str]:
    write_tree(tmp_path, {
        "pyproject.toml": '[project]\nname = "deblur-suite"\n',  # an application: its package is published as no name
        "scripts/train.sh": "python restorer/train.py\n",
        "restorer/__init__.py": "",
        "restorer/train.py": "from restorer.models import UsedModel\nUsedModel().step()\n",
        "restorer/models.py": ("import torch\n"
                               "class UsedModel:\n    def step(self):\n" + CUDA +
                               "class SharpenModel:\n    def step(self):\n" + CUDA),
        **extra,
    })
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    return {f.line: f.reach for f in report.findings if f.rule == "DEV004" and f.path == "restorer/models.py"}


def test_a_class_named_only_in_another_files_prose_or_a_test_is_unreached(tmp_path):
    for i, writer in enumerate((
            {"restorer/log.py": "import logging\ndef check(opt):\n    logging.info('only SharpenModel supports it')\n"},
            {"restorer/doc.py": 'def check(opt):\n    """Like SharpenModel, but lighter."""\n    return opt\n'},
            {"restorer/note.py": "# SharpenModel(opt) was the old default\n"},
            {"tests/test_models.py": "from restorer.models import SharpenModel\ndef test_it():\n"
                                     "    SharpenModel().step()\n"})):
        root = tmp_path / str(i)
        reach = _application(root, writer)
        assert reach[4] == "runs", writer  # UsedModel
        assert reach[7] == "optional", writer


def test_a_class_named_by_a_registry_string_or_code_stays_reached(tmp_path):
    for i, writer in enumerate((
            {"restorer/build.py": "import restorer.models as m\ndef make(opt):\n    return getattr(m, 'SharpenModel')()\n",
             "restorer/train.py": "from restorer.models import UsedModel\nfrom restorer.build import make\n"
                                  "UsedModel().step()\nmake(1)\n"},
            {"restorer/train.py": "from restorer.models import UsedModel, SharpenModel\nUsedModel().step()\n"
                                  "SharpenModel().step()\n"})):
        root = tmp_path / str(i)
        assert _application(root, writer)[7] == "runs", writer


def test_the_named_nowhere_reason_with_its_qualifiers_reads_in_chinese():
    # "(only re-exported by ...)" and "(named only by tests: ...)" follow the reason unreferenced.py writes; each form
    # has its own Chinese text (an unrecognised phrase would stay English in a zh report)
    from ascend_feasibility.analyzer.reporting.localize import phrase
    head = ("line 5: function foo is named nowhere else in the project (no call, reference, export or config entry)")
    tail = ": nothing reaches it"
    assert phrase("zh", head + " (only re-exported by pkg/__init__.py)" + tail) == (
        "第 5 行：函数 foo 在项目其他任何地方都未被提及（无调用、引用、导出或配置条目；仅由 pkg/__init__.py 重新导出）：没有代码会执行到它")
    assert phrase("zh", head + " (named only by tests: tests/test_a.py and 2 more)" + tail) == (
        "第 5 行：函数 foo 在项目其他任何地方都未被提及（无调用、引用、导出或配置条目；仅被测试提及：tests/test_a.py 等 2 个）：没有代码会执行到它")
    both = phrase("zh", head + " (only re-exported by pkg/__init__.py) (named only by tests: tests/t.py)" + tail)
    assert both.endswith("仅由 pkg/__init__.py 重新导出；仅被测试提及：tests/t.py）：没有代码会执行到它")
