"""A small decoder-only language model trained with DDP and mixed precision."""
