"""Variable-length batches for the varlen attention path: drop padding before it, restore it after."""
from flash_attn.bert_padding import pad_input, unpad_input


def pack(hidden, mask):
    return unpad_input(hidden, mask)


def unpack(hidden, indices, batch, seqlen):
    return pad_input(hidden, indices, batch, seqlen)
