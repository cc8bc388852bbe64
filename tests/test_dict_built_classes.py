"""Classes a file builds only by `globals()[key](...)` over the keys of a dict the project ships are optional when no
shipped dict names them (analyzer/context/dict_built.py, domains/phases/dict_built_classes.py; round 31 A2 C6, B1 C1,
B2 C1). A key no shipped value fixes, another by-name lookup, a direct call or another file naming the class or the
dict's receiver keeps today's reach."""

from __future__ import annotations

from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze

from tests.helpers import write_tree

TOOL = ("class {name}:\n"
        "    def __init__(self, device):\n"
        "        self.dtype = torch.float16 if 'cuda' in device else torch.float32\n"
        "        print(self.dtype)\n")
BOT = ("class ChatBot:\n"
       "    def __init__(self, load_dict):\n"
       "        self.models = {{}}\n"
       "        for class_name, device in load_dict.items():\n"
       "            self.models[class_name] = globals()[class_name](device=device)\n"
       "        for class_name, module in globals().items():\n"
       "            if getattr(module, 'template_model', False):\n"
       "                self.models[class_name] = globals()[class_name](**{{}})\n"
       "{extra}")
MAIN = "if __name__ == '__main__':\n    {binding}\n    bot = ChatBot(load_dict)\n"
TEMPLATE = "class OutPainting:\n    template_model = True\n    def __init__(self, Captioner):\n" \
           "        self.dtype = torch.float16 if 'cuda' in Captioner.device else torch.float32\n        print(self.dtype)\n"


def _app(tmp_path, binding: str = "load_dict = {'Inpainter': 'cuda:0'}", extra: str = "",
         files: dict[str, str] | None = None) -> dict[int, tuple[str, str | None]]:
    source = ("import torch\n" + TOOL.format(name="Inpainter") + TOOL.format(name="Captioner")
              + TOOL.format(name="Editor") + TEMPLATE + BOT.format(extra=extra) + MAIN.format(binding=binding))
    write_tree(tmp_path, {"chatbot.py": source, **(files or {})})
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    return {f.line: (f.reach, f.reach_reason) for f in report.findings
            if f.path == "chatbot.py" and f.rule == "DEV007"}


def test_classes_the_shipped_dict_does_not_name_are_optional(tmp_path):
    reach = _app(tmp_path)
    assert reach[4] == ("runs", None)  # Inpainter, named by the shipped dict
    for line, name in ((8, "Captioner"), (12, "Editor")):
        assert reach[line][0] == "optional", name
        assert f"class {name} is built only by name" in reach[line][1]
        assert "`globals()[class_name](...)` at line 23 over the keys of `load_dict`" in reach[line][1]
        assert "name only Inpainter" in reach[line][1]
    assert reach[17] == ("runs", None)  # the template class, built by the filtered loop over globals()


def test_a_dict_no_shipped_value_fixes_keeps_every_class(tmp_path):
    # near miss: the keys come from a command-line argument
    reach = _app(tmp_path, binding="load_dict = {e.split('_')[0]: e.split('_')[1] for e in sys.argv[1].split(',')}")
    assert {reach[line][0] for line in (4, 8, 12)} == {"runs"}


def test_another_lookup_by_name_keeps_every_class(tmp_path):
    reach = _app(tmp_path, extra="def make(name):\n    return globals().get(name)\n")  # near miss: any name
    assert {reach[line][0] for line in (4, 8, 12)} == {"runs"}


def test_a_class_the_code_builds_directly_runs(tmp_path):
    reach = _app(tmp_path, extra="def caption():\n    return Captioner('cuda')\n")  # near miss: a direct call
    assert reach[8] == ("runs", None)
    assert reach[12][0] == "optional"


def test_another_file_naming_the_receiver_keeps_every_class(tmp_path):
    # near miss: another script builds the bot with its own dict
    reach = _app(tmp_path, files={"serve.py": "from chatbot import ChatBot\nChatBot({'Editor': 'cuda:0'})\n"})
    assert {reach[line][0] for line in (4, 8, 12)} == {"runs"}
