"""What the command line needs of `port` before a port runs: the styles `--style` offers and the error --apply raises.
They live apart from port's code so that every other command (analyze above all) starts without loading it."""

STYLES = ("agnostic", "npu")


class ApplyError(Exception):
    """--apply refused or failed before anything was written."""
