"""The attention domain: flash-attn, xformers, SDPA, Hugging Face attention selection, hand-written attention."""
