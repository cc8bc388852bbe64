"""The dependencies domain: declared and imported distributions, their Ascend status, the torch version fit."""
