"""deepspeed is not needed for these CPU tests: a stand-in module when it is not installed."""
import importlib.util
import sys
import types

if importlib.util.find_spec("deepspeed") is None:
    sys.modules["deepspeed"] = types.ModuleType("deepspeed")
