"""A small decoder-only language model trained with DDP and mixed precision."""
from llm_train.rollout import RolloutWorker  # the Ray rollout actors the package offers

__all__ = ["RolloutWorker"]
