"""Methods no created class runs: a class the project never creates itself (its name is written only as a base class,
in imports and in re-exports) runs a method only through the subclasses that inherit it; a subclass defining the same
method without calling `super()` or a base's method replaces it. BasicSR's `ModulatedDeformConvPack.forward` calls
`modulated_deform_conv` (an autograd Function's apply); the project builds only `DCNv2Pack(ModulatedDeformConvPack)`,
whose own `forward` calls torchvision's op: the base `forward`, and the Function through it, never run.

Read by unreferenced.py for the symbols its candidates' users name: only classes that pass is judging (an
application's, an unpublished package's, a private one) can be found never created; a published library's public
class may be created by its users, and so may any class whose name a file writes anywhere else (a call, a config
entry, a string a registry looks it up by, a comment)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ascend_feasibility.domains.base import ModuleFacts


class MethodReach:
    """`candidates`: the (path, name) unreferenced.py judges; `written`: name → the files writing it (written_names.
    writers, asked for every candidate); `reexports`: unreferenced.reexporters_of(facts); `unreached`: the (path,
    name) found unreached so far (it grows: asking again may answer less)."""

    def __init__(self, facts: list[ModuleFacts], candidates: set[tuple[str, str]], written: dict[str, set[str]],
                 reexports: Callable[[str, str], set[str]], unreached: dict[tuple[str, str], str],
                 silent: set[tuple[str, str, str]] = frozenset()) -> None:
        self._facts = {f.path: f for f in facts}
        self._uses: dict[str, tuple[dict[tuple[str, str], tuple[str, ...]], frozenset[str]]] = {}  # path → _read
        self._subclasses: dict[str, list[tuple[str, str, frozenset[str]]]] = defaultdict(list)
        for f in facts:
            for name, bases, overriding in f.class_shapes:
                for base in bases:
                    self._subclasses[base].append((f.path, name, frozenset(overriding)))
        self._candidates = candidates
        self._written = written
        self._reexports = reexports
        self._unreached = unreached
        self._silent = silent
        self._silent_classes = {(path, holder) for path, holder, _ in silent}

    def overridden(self, user: tuple[str, str], name: str) -> tuple[str, ...]:
        """The methods of `user` (path, class) that alone write `name`, where no class the project creates runs
        any of them (each one a subclass replaces on every way to a created class), else ()."""
        if user not in self._candidates:
            return ()  # a class the pass does not judge: each of its methods reaches (_reaches), if it has any
        methods = self._read(user[0])[0].get((name, user[1]))
        if not methods or any(self._reaches(user, method, frozenset()) for method in methods):
            return ()
        return methods

    def uncalled(self, user: tuple[str, str], name: str) -> tuple[str, ...]:
        """The methods of `user` (path, class) that alone write `name`, where every one is a private method nothing
        calls (`silent`: (path, class, method), uncalled_methods.py), else ()."""
        if (user[0], user[1]) not in self._silent_classes:
            return ()  # none of its methods is silent, if it has any
        methods = self._read(user[0])[0].get((name, user[1]))
        if not methods or any((user[0], user[1], method) not in self._silent for method in methods):
            return ()
        return methods

    def _reaches(self, key: tuple[str, str], method: str, seen: frozenset[tuple[str, str]]) -> bool:
        if key not in self._candidates:
            return True  # a class the pass does not judge (a published library's): its users may create it
        if key in self._unreached:
            return False
        if self._created(key):
            return True
        seen = seen | {key}
        return any(self._reaches((path, name), method, seen) for path, name, overriding in self._subclasses[key[1]]
                   if method not in overriding and (path, name) not in seen)

    def _created(self, key: tuple[str, str]) -> bool:
        """Does any file write the class's name anywhere but in base class lists, imports, `__all__`, re-exports and
        the class's own statement?"""
        path, name = key
        others = self._written.get(name, set()) - self._reexports(path, name)
        # the files whose base_only is at hand first: a file read again at project time only where they do not decide
        return any(name not in self._read(other)[1] for other in sorted(others | {path}, key=self._held_back))

    def _held_back(self, path: str) -> tuple[bool, str]:
        f = self._facts.get(path)
        return f is not None and f.uses_later, path

    def _read(self, path: str) -> tuple[dict[tuple[str, str], tuple[str, ...]], frozenset[str]]:
        """The file's method_users as (name, class) → methods, and its base_only; a file whose facts held them back
        is read again, once (ModuleFacts.class_uses)."""
        found = self._uses.get(path)
        if found is None:
            f = self._facts.get(path)
            method_users, base_only = ([], []) if f is None else f.class_uses() if f.uses_later else (
                f.method_users, f.base_only)
            found = self._uses[path] = ({(name, holder): tuple(methods) for name, holder, methods in method_users},
                                        frozenset(base_only))
        return found
