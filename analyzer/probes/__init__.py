"""The probe runner: small controlled experiments that check candidate Ascend replacements on the device at hand.

catalog (the probes), environment (the host check), runner (measuring) and standalone (the exported script's command
line) import only the standard library, torch and each other, so that `probe export` can join them into one script;
commands and export are the analyzer's side."""
