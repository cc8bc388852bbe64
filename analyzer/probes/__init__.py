"""The probe runner: small controlled experiments that check candidate Ascend replacements on the device at hand.

`core.py` holds the probes, the runner and the environment check and imports nothing but the standard library and
torch, so that `probe export` can ship it as one standalone script."""
