"""deepspeed and apex are not needed for these CPU tests: stand-in modules when they are not installed."""
import importlib.util
import sys
import types

import torch


def _stand_in(name: str, **attributes) -> None:
    module = types.ModuleType(name)
    module.__dict__.update(attributes)
    sys.modules[name] = module


if importlib.util.find_spec("deepspeed") is None:
    _stand_in("deepspeed")
    _stand_in("deepspeed.ops")
    _stand_in("deepspeed.ops.adam", DeepSpeedCPUAdam=torch.optim.Adam)
    _stand_in("deepspeed.ops.lamb", FusedLamb=torch.optim.Adam)
if importlib.util.find_spec("apex") is None:
    _stand_in("apex")
    _stand_in("apex.normalization", FusedLayerNorm=torch.nn.LayerNorm)
