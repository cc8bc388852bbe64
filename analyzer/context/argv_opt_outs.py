"""Build arms the project's own install leaves out: NAFNet's setup.py builds its CUDA extensions in the `else` of
`if '--no_cuda_ext' in sys.argv:` and its README installs with `python setup.py develop --no_cuda_ext`, so the
documented install builds none of them (round 34 B1 17). The arm (argv_switches.opt_out_arms) is the default one on
a plain install and stays counted unless the project's README runner commands or a launcher of the project pass the
flag (switched_on.turned_on, the places that turn an argv flag on); then it is optional, the reason naming the flag
and where it is passed."""

from __future__ import annotations


def passed_opt_out_arms(facts, switches_on: dict[str, list[tuple[str, str]]]) -> dict[str, list[tuple[int, int, str, bool]]]:
    """path → (first line, last line, reason, False) of the arms taken only without a flag the project passes (as
    unpassed_defaults' ranges). `switches_on`: switched_on.turned_on(facts, context)."""
    result: dict[str, list[tuple[int, int, str, bool]]] = {}
    for f in facts:
        for first, last, flag, line in f.argv_opt_out_arms:
            places = [where for callee, where in switches_on.get(flag.lstrip("-").replace("-", "_"), [])
                      if callee in {"", "sys.argv"}]
            if places:
                more = f" (and {len(places) - 1} more)" if len(places) > 1 else ""
                why = (f"taken only without `{flag}` (sys.argv, line {line}), and the project installs with it: "
                       f"{places[0]}{more}")
                result.setdefault(f.path, []).append((first, last, why, False))
    return result
