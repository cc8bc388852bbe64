"""transformers is not needed for these CPU tests: a stand-in module when it is not installed."""
import importlib.util
import sys
import types

if importlib.util.find_spec("transformers") is None:
    stand_in = types.ModuleType("transformers")
    stand_in.AutoModelForCausalLM = stand_in.AutoTokenizer = object
    sys.modules["transformers"] = stand_in
