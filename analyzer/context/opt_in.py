"""Code that runs only when a user opts in: `optional`, with the switch that turns it on as the reason.

Per site (OptInReader, asked after the guards):
- an integration of another framework: a site about DeepSpeed inside a function every call of which in the file sits
  under a condition naming DeepSpeed (`if self.distributed_type == DistributedType.DEEPSPEED: self._prepare_deepspeed()`),
  or inside a class named for the framework's integration (`class MegatronLMPlugin`);
- a helper named for an opt-in feature (`def compile_regions(...)` around torch.compile) runs when its caller turns
  the feature on;
- a type check naming a class (`isinstance(model, (DistributedDataParallel, DataParallel))`) is no use of the class;
- a site reached only while an off-by-default switch is on (`--xformers`, `use_flash_attn=False`): switches.py;
- a CUDA-only class every table of its file picks only while its library imports (sgm's ATTENTION_MODES with
  `if attn_mode != "softmax" and not XFORMERS_IS_AVAILABLE: attn_mode = "softmax"`): fallback_tables.py;
- FlashAttention-3 in a file that also offers FlashAttention-2 or SDPA: an alternative, ported once at the FA2/SDPA site;
- code inside a profiler (`class NsysProfiler`, `def start_profiling`): runs only when someone profiles;
- code that drives another inference runtime (TensorRT, ONNX Runtime, Paddle): runtimes.py (`other-backend`);
- a CUDA variable set only for a child process of another framework's tool: child_processes.py (`other-backend`).

Per module (opt_in_modules, from every file's facts):
- a module named like a configuration choice of a chain that has a default arm (torchtitan's
  `elif comm_backend == "minimal_async_ep":` beside "standard" selects distributed/minimal_async_ep/), unless a config
  file of the project names it by its dotted name (`hift: !new:pkg.hifigan.generator.HiFTGenerator`): that config builds
  it whatever a chain whose value shares its name (`if batch["turn"] == "generator":`) selects;
- a module no product code imports that a string of the project names (torchtitan's overrides/fused_swiglu.py, loaded
  by name when `--override.imports` or a preset lists "torchtitan.overrides.fused_swiglu.fused_swiglu");
- a module whose classes are imported only to be registered under string keys no other file of the project writes
  (llm-foundry's `callbacks.register('env_logging', func=EnvironmentLoggingCallback)`: a YAML's `callbacks:` turns it on).
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import PurePosixPath

from ascend_feasibility.analyzer.context.child_processes import ChildProcessReader
from ascend_feasibility.analyzer.context.config_paths import path_values
from ascend_feasibility.analyzer.context.fallback_tables import fallback_table
from ascend_feasibility.analyzer.context.guards import Guard, GuardReader, _same, _tokens_of, _words
from ascend_feasibility.analyzer.context.project import ProjectContext
from ascend_feasibility.analyzer.context.roles import path_view
from ascend_feasibility.analyzer.context.runtimes import RuntimeReader
from ascend_feasibility.analyzer.context.switched_on import turned_on
from ascend_feasibility.analyzer.context.switches import (
    CONFIG_PREFIX,
    CONTAINS,
    ENV_PREFIX,
    PARAMETER_PREFIX,
    ExplainedGuard,
    SwitchReader,
)
from ascend_feasibility.analyzer.context.unloaded import config_named_modules, import_names, package_folders
from ascend_feasibility.analyzer.context.unpassed_defaults import own_key, project_calls
from ascend_feasibility.analyzer.context.written_names import MIN_NAME, PROSE_SUFFIXES, writers
from ascend_feasibility.analyzer.core.models import COUNTED_ROLES
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.knowledge import load_context_conventions
from ascend_feasibility.knowledge.models import OptInConventions
from tree_sitter import Node

MAX_DEPTH = 400
MAX_CALLS = 50
CONFIG_SUFFIXES = (".yaml", ".yml", ".json")
MAX_NAME_USES = 200
TYPE_CHECK_CARRIERS = {"attribute", "identifier", "tuple", "parenthesized_expression", "list", "expression_list"}


class OptInReader:
    def __init__(self, conventions: OptInConventions, guards: GuardReader) -> None:
        self.conventions = conventions
        self.guards = guards
        self.packages = tuple(conventions.integration_packages)
        self.class_words = tuple(conventions.integration_class_words)
        self.type_checks = frozenset(conventions.type_check_calls)
        self.type_check_domains = frozenset(conventions.type_check_domains)
        self.switch_features = frozenset(conventions.switch_feature_rules)
        self.switches = SwitchReader(guards, conventions.argument_objects, conventions.mainstream_switch_tokens,
                                     conventions.feature_switch_tokens)
        self.runtimes = RuntimeReader(conventions.other_runtimes, conventions.runtime_calls, guards.import_statements)
        self.children = ChildProcessReader({**conventions.other_runtimes, **conventions.other_framework_tools},
                                           conventions.native_programs)
        self.fa3 = tuple(conventions.flash_attn_3_packages)
        self.fa2 = tuple(conventions.flash_attn_2_packages)
        self.sdpa_calls = tuple(conventions.sdpa_calls)
        self.profiler_tokens = tuple(conventions.profiler_name_tokens)
        self._offers: tuple[Node | None] | None = None  # the unit's FA2 import or SDPA call, read once per unit
        guards.unit_resets.append(self._forget_unit)

    def guard(self, node: Node, domain: str, symbol: str, rule: str = "") -> Guard | None:
        # a kernel, a fused library or torch.compile: any off-by-default switch makes it optional; so does it a rule
        # of switch_feature_rules (a TF32 setting under `--allow_tf32`: the port mirrors it to HF32 where the user
        # turns it on, the advice stays; a launcher passing the switch makes it `runs` again: switched_on.py)
        feature = domain in self.guards.feature_domains or rule in self.guards.flag_rules
        found = (self._alternative(node, symbol) or self._profiler(node) or self.runtimes.guard(node)
                 or self.children.guard(node) or self.switches.guard(node, feature or rule in self.switch_features))
        if found is None and domain in self.guards.feature_domains:  # a kernel or fused library, not a flag rule
            found = self._library_function(node) or fallback_table(node, self.guards)
        if found is not None:
            return found
        if rule in self.guards.flag_rules:
            found = self._feature_helper(node)
            if found is not None:
                return found
        package = self._package(symbol)
        if package is not None:
            found = self._integration(node, package)
            if found is not None:
                return found
        if domain in self.type_check_domains:
            return self._type_check(node)
        return None

    # alternatives, profilers ----------------------------------------------------------------------------------
    def _alternative(self, node: Node, symbol: str) -> Guard | None:
        """FlashAttention-3 (flash_attn_interface, hopper) in a file that also imports FlashAttention-2 or calls SDPA:
        one attention path with a Hopper-only variant, ported once where FA2/SDPA is (no second item)."""
        root = symbol.split(".", 1)[0]
        if root not in self.fa3:
            return None
        other = self._offers_fa2_or_sdpa(node)
        return ExplainedGuard("optional", other, why="a FlashAttention-3 alternative to the FA2/SDPA path the file also offers") \
            if other is not None else None

    def _forget_unit(self) -> None:
        self._offers = None
        self.runtimes.memo.clear()
        self.children.memo.clear()

    def _offers_fa2_or_sdpa(self, node: Node) -> Node | None:
        unit = parsing.root_of(node)
        if self._offers is None:
            found = None
            for statement in self.guards.import_statements(unit)[:2000]:
                names = [parsing.text(n) for n in (statement.child_by_field_name("module_name"),
                                                   *statement.children_by_field_name("name")) if n is not None]
                if any(n.split(" ")[0].split(".")[0] in self.fa2 for n in names):
                    found = statement
                    break
            if found is None:
                calls = self.guards.calls_named(node)
                found = next((calls[c][0] for c in self.sdpa_calls if calls.get(c)), None)
            self._offers = (found,)
        return self._offers[0]

    def _library_function(self, node: Node) -> Guard | None:
        """A CUDA-only feature inside a function named for a third-party CUDA-only library that nothing in the file
        calls (sd-scripts' `def replace_vae_attn_to_xformers():`, whose one call is commented out under `elif
        xformers:`): the function analogue of guards' library classes (XFormersAttnProcessor), an alternative a user
        opts into."""
        outermost, current, depth = None, node.parent, 0
        while current is not None and depth < MAX_DEPTH:  # a nested function runs when its outer function does
            if current.type == "function_definition":
                outermost = current
            current, depth = current.parent, depth + 1
        name = outermost.child_by_field_name("name") if outermost is not None else None
        lowered = parsing.text(name).lower() if name is not None else ""
        library = next((t for t in self.guards.guards.library_class_tokens if t in lowered), None)
        if library is None or "npu" in lowered or lowered.startswith("test") or self.switches.called(outermost):
            return None
        return ExplainedGuard("optional", name, why=f"inside {parsing.text(name)}(), named for {library} and called nowhere "
                                             "in this file: an alternative a user opts into")

    def _profiler(self, node: Node) -> Guard | None:
        """A site in a class or function named for a profiler (NsysProfiler, NsysRange, start_profiling): it runs only
        when someone profiles."""
        current, depth = node.parent, 0
        while current is not None and depth < MAX_DEPTH:
            if current.type in {"class_definition", "function_definition"}:
                name = current.child_by_field_name("name")
                lowered = parsing.text(name).lower() if name is not None else ""
                if any(token in lowered for token in self.profiler_tokens):
                    return ExplainedGuard("optional", name, why=f"inside the profiler {parsing.text(name)}: it runs only when profiling is switched on")
            current, depth = current.parent, depth + 1
        return None

    def _feature_helper(self, node: Node) -> Guard | None:
        """A site inside a function named for the opt-in feature itself (`def compile_regions(module):` around
        torch.compile): the function is the feature, and runs only when its caller turns the feature on."""
        current, depth = node.parent, 0
        while current is not None and depth < MAX_DEPTH:
            if current.type == "function_definition":
                name = current.child_by_field_name("name")
                words = [w for w in parsing.text(name).lower().split("_") if w] if name is not None else []
                if any(self.guards.is_flag(w) for w in words):
                    return Guard("optional", name)
            current, depth = current.parent, depth + 1
        return None

    def _package(self, symbol: str) -> str | None:
        root = symbol.split(".", 1)[0].lower()
        return next((p for p in self.packages if root == p or root.startswith(p + "_")), None)

    # integrations ----------------------------------------------------------------------------------------------
    def _integration(self, node: Node, package: str) -> Guard | None:
        token = package.replace("_", "")
        current, depth = node.parent, 0
        while current is not None and depth < MAX_DEPTH:
            if current.type == "class_definition":
                name = current.child_by_field_name("name")
                lowered = parsing.text(name).lower() if name is not None else ""
                if token in lowered.replace("_", "") and any(w in lowered for w in self.class_words):
                    return Guard("optional", name)
            if current.type == "function_definition":
                switch = self._callers_switch(current, token)
                if switch is not None:
                    return switch
            current, depth = current.parent, depth + 1
        return None

    def _callers_switch(self, function: Node, token: str) -> Guard | None:
        """The condition every call of this function (in the file) sits under, when it names the framework."""
        name = function.child_by_field_name("name")
        if name is None:
            return None
        calls = [c for c in self.guards.calls_named(function).get(parsing.text(name), [])
                 if not (function.start_byte <= c.start_byte < function.end_byte)]
        if not calls or len(calls) > MAX_CALLS:
            return None
        switches = [self._switch_above(call, token) for call in calls]
        if any(s is None for s in switches):
            return None
        return Guard("optional", switches[0])

    @staticmethod
    def _switch_above(node: Node, token: str) -> Node | None:
        """The nearest if/elif condition above `node`, when the branch holding `node` is the one it selects and it
        names the framework (`DistributedType.DEEPSPEED`)."""
        child, parent, depth = node, node.parent, 0
        while parent is not None and depth < MAX_DEPTH and parent.type not in {"function_definition", "module"}:
            if parent.type in {"if_statement", "elif_clause"}:
                condition = parent.child_by_field_name("condition")
                body = parent.child_by_field_name("consequence") if parent.type == "if_statement" else parent
                inside = body is not None and body.start_byte <= child.start_byte and child.end_byte <= body.end_byte
                if condition is not None and inside and not _same(condition, child):
                    if token in {t.replace("_", "") for t in _tokens_of(_words(condition))} or token in parsing.text(condition).lower().replace("_", ""):
                        return condition
                    return None
            child, parent, depth = parent, parent.parent, depth + 1
        return None

    # type checks -----------------------------------------------------------------------------------------------
    def _type_check(self, node: Node) -> Guard | None:
        """A class named only as a type to test against: in isinstance/issubclass's arguments, or in a tuple bound to
        a name that is used only there."""
        child, parent = node, node.parent
        while parent is not None and parent.type in TYPE_CHECK_CARRIERS:
            child, parent = parent, parent.parent
        if parent is None:
            return None
        if parent.type == "argument_list" and self._is_type_check(parent.parent):
            return Guard("optional", parent.parent)
        right = parent.child_by_field_name("right") if parent.type == "assignment" else None
        if right is not None and _same(right, child):
            target = parent.child_by_field_name("left")
            if target is not None and target.type == "identifier" and self._only_type_checked(parent, parsing.text(target)):
                return Guard("optional", parent)
        return None

    def _is_type_check(self, call: Node | None) -> bool:
        if call is None or call.type != "call":
            return False
        function = call.child_by_field_name("function")
        return function is not None and parsing.text(function) in self.type_checks

    def _only_type_checked(self, assignment: Node, name: str) -> bool:
        scope = parsing.enclosing(assignment, {"function_definition", "module"})
        if scope is None:
            return False
        uses = []
        for current in parsing.walk(scope, limit=20000, named=False):
            if current.type == "identifier" and parsing.text(current) == name:
                uses.append(current)
                if len(uses) > MAX_NAME_USES:
                    return False
        uses = [u for u in uses if not (assignment.start_byte <= u.start_byte < assignment.end_byte)]
        return bool(uses) and all(self._type_check_use(u) for u in uses) and any(
            u.parent is not None and u.parent.type == "argument_list" for u in uses)

    def _type_check_use(self, use: Node) -> bool:
        """An argument of isinstance/issubclass, or the tuple growing (`options += (DeepSpeedEngine,)`)."""
        parent = use.parent
        if parent is None:
            return False
        if parent.type == "argument_list":
            return self._is_type_check(parent.parent)
        return parent.type == "augmented_assignment" and parent.child_by_field_name("left") is not None and \
            parent.child_by_field_name("left").start_byte == use.start_byte


# Modules ---------------------------------------------------------------------------------------------------------
def opt_in_modules(facts, context: ProjectContext, conventions: OptInConventions) -> dict[str, tuple[str, str]]:
    """path → ("optional", the switch) for modules that run only when configuration selects or names them."""
    counted = [f for f in facts if context.of(f.path).role in COUNTED_ROLES and context.of(f.path).reach == "runs"]
    result: dict[str, tuple[str, str]] = {}
    choices = _choices(counted, conventions)
    configured = config_named_modules(facts, context) if choices else {}
    for f in counted:
        if not f.module or f.module in configured:  # a shipped config builds it: no selector chain decides its reach
            continue
        view = PurePosixPath(f.path)
        parts = [*view.parts[:-1], view.stem]
        for part in reversed(parts[1:]):  # the most specific part first (deepep/hybridep.py is hybridep's)
            choice = choices.get(part.lower())
            if choice is not None and choice[0] != f.path:
                path, line, condition = choice
                result[f.path] = ("optional", f"selected by configuration: `{condition}` ({path}:{line})")
                break
    named = _named_only(facts, counted, context)
    for path, reason in named.items():
        result.setdefault(path, ("optional", reason))
    for path, reason in _registered_only(facts, counted).items():
        result.setdefault(path, ("optional", reason))
    return result


def _registered_only(facts, counted) -> dict[str, str]:
    """Modules whose classes product code imports only to register them under string keys (`callbacks.register(
    'env_logging', func=EnvironmentLoggingCallback)`), where no other file (code, YAML, JSON, shell, docs) writes a
    key or a class name, and nothing else imports the module: a configuration naming the key turns them on."""
    registered = [(f, r) for f in counted for r in f.registrations]
    if not registered:
        return {}
    by_module = {f.module: f for f in counted if f.module}
    per_module: dict[str, list[tuple[str, tuple]]] = defaultdict(list)  # module → (registering file, registration)
    for f, r in registered:
        if r[2] in by_module and by_module[r[2]].path != f.path:
            per_module[r[2]].append((f.path, r))
    if not per_module:
        return {}
    importers: dict[str, set[str]] = defaultdict(set)
    for f in counted:
        for name in f.imports:
            for module in per_module:
                if name == module or name.startswith(module + "."):
                    importers[module].add(f.path)
    written = writers({n for entries in per_module.values() for _, r in entries for n in r[:2]}, facts)
    result = {}
    for module, entries in per_module.items():
        target = by_module[module]
        registrars = {path for path, _ in entries}
        classes = {r[1] for _, r in entries}
        if (target.top_level_code or target.main_guard or importers[module] - registrars
                or any(set(r[3]) - classes for _, r in entries)
                or any(len(r[0]) < MIN_NAME or written.get(r[0], set()) - {path} for path, r in entries)
                or any(written.get(r[1], set()) - {path, target.path} for path, r in entries)):
            continue
        path, (_, _, _, _, line, registry) = entries[0]
        keys = ", ".join(f"`{r[0]}`" for _, r in entries)
        result[target.path] = (f"enabled only when a configuration names {keys} under the registry `{registry}` "
                               f"({path}:{line}); no other file of the project names it")
    return result


def switched_options(facts, context: ProjectContext,
                     switches_on: dict[str, list[tuple[str, str]]] | None = None,
                     with_choices: bool = False) -> dict[str, list[tuple]]:
    """path → line ranges (with the option and the reason) of arms a command-line option turns on, where the project declares the
    option off by default wherever it declares it (`--fp8_base`, store_true, in library/train_util.py; `if
    args.fp8_base:` in sd3_train_network.py) and no launch script of the project passes it (nor a config of it sets its
    dest to true: switched_on.py). An option is also a field
    of a `@dataclass` (HfArgumentParser's `TrainingArguments`), or of a known framework's arguments class the project
    imports (knowledge: framework_options), and an arm may need the option to hold one of some strings its default is
    not (`--optim` "adamw_torch"; `if args.optim == "adamw_bnb_8bit":`, `== OptimizerNames.ADAMW_BNB`, or the `else`
    after the arms of every other choice), which no launch script passes it. Arms decided by a value only such arms
    set (`if self.use_apex:`, option_markers.py) follow them. The option in each range is named with the strings an arm
    needs (`optim_adamw_bnb_8bit`; the strings alone for an option of a mainstream choice: `apex` for
    `half_precision_backend`), for the caller's test of whether the switch names an opt-in feature. An arm may also
    test a parameter named like an option with declared choices, which every call passes by keyword
    (`_parameter_option_arms`: AnimateDiff's `init_dist(launcher=launcher)`, `--launcher` choices pytorch, slurm). With
    `with_choices`, each range carries a fifth item: whether the values the arm needs are among its option's declared
    `choices` (a choice argparse offers, not an off switch: any site it alone reaches is opt-in)."""
    declared: dict[str, tuple[bool, str, str]] = {}
    for f in facts:
        for dest, off, flag, line in f.options:
            before = declared.get(dest)
            declared[dest] = (off and (before is None or before[0]), flag, before[2] if before else f"{f.path}:{line}")
    defaults: dict[str, tuple[set[str], str]] = {}  # dest → (its string defaults, where the first is declared)
    for f in facts:
        for dest, value, line in f.option_values:
            defaults.setdefault(dest, (set(), f"{f.path}:{line}"))[0].add(value.lower())
    conventions = load_context_conventions().opt_in
    choices = _framework_options(facts, conventions, declared, defaults)
    if not declared and not defaults and not any(a[2].startswith(CONFIG_PREFIX) for f in facts for a in f.option_value_arms):
        return {}
    mainstream = frozenset(conventions.mainstream_switch_tokens)
    launched = {flag.replace("-", "_") for f in facts for flag in f.launch_flags}
    switches_on = turned_on(facts, context) if switches_on is None else switches_on
    configured = {name for name, places in switches_on.items() if any(not callee for callee, _ in places)}
    passed: dict[str, set[str]] = defaultdict(set)
    for f in facts:
        for flag, value in f.launch_values:
            passed[flag.lstrip("-").replace("-", "_")].add(value.lower())
    configs = [f.words for f in facts if f.path.endswith(CONFIG_SUFFIXES) and f.words]
    carried = carried_options(facts)
    bound: dict[str, set[str]] = defaultdict(set)  # dest → literals a local holding it is also bound to
    for f in facts:
        for dest, literal in f.option_literals:
            bound[dest].add(literal.lower())
    option_choices = _declared_choices(facts)
    by_parameter = _parameter_option_arms(facts, context, option_choices)
    members = _enum_values(facts)
    chosen: set[tuple[str, int, int]] = set()  # arms needing a declared choice: (path, first, last)
    result: dict[str, list[tuple[int, int, str, str]]] = defaultdict(list)
    for f in facts:
        if context.of(f.path).role not in COUNTED_ROLES:
            continue
        for first, last, dest, condition in f.option_arms:
            option = declared.get(dest)
            if option is None or not option[0] or option[1].replace("-", "_") in launched or dest in configured:
                continue  # on by a declaration, or turned on by a launch script, a config or a dict of the project
            result[f.path].append((first, last, dest, f"`{option[1]}` is off unless given ({option[2]}); {condition}"))
        arms = [(first, last, dest, values, condition, False) for first, last, dest, values, condition in f.option_value_arms]
        arms += [(first, last, dest, tuple(sorted(choices[dest] - {_value(v) for v in taken})), condition, True)
                 for first, last, dest, taken, condition in f.option_else_arms if dest in choices]
        arms += by_parameter.get(f.path, [])
        for first, last, dest, values, condition, otherwise in arms:
            values = tuple(members.get(v, v) for v in values)  # `AttentionVariants.XFORMERS`: "xformers_default"
            if dest.startswith(CONFIG_PREFIX) and "." in dest:  # `config.TRAIN.OPTIMIZER.NAME`: config_paths
                why = _unset_path_value(dest[len(CONFIG_PREFIX):], values, facts, defaults, passed, configs)
                if why is not None:
                    named = [dest[len(CONFIG_PREFIX):].rsplit(".", 1)[-1].lower(), *(_value(v).removeprefix(CONTAINS)
                                                                                     for v in values)]
                    result[f.path].append((first, last, "_".join(named), f"{why}; {condition}"))
                continue
            if dest.startswith(CONFIG_PREFIX):
                why = _unset_config_value(dest[len(CONFIG_PREFIX):], values, f.path, facts, passed)
                if why is not None:
                    result[f.path].append((first, last, "_".join([dest[len(CONFIG_PREFIX):], *values]), f"{why}; {condition}"))
                continue
            carrier = ""
            if dest.startswith(PARAMETER_PREFIX):  # a parameter named like an option: only its choices decide (rejected_arms)
                continue
            if dest.startswith(ENV_PREFIX):  # `'mamba' in os.environ["RWKV_MY_TESTING"]`: the option it carries
                found = carried.get(dest[len(ENV_PREFIX):])
                if found is None:
                    continue
                dest, literals, carrier = found
            else:
                literals = bound.get(dest, set())
            default = defaults.get(dest)
            needed = {_value(v) for v in values}
            if default is None or not needed or _holds(needed, default[0] | literals) or declared.get(dest, (False,))[0]:
                continue  # an option declared as an off switch somewhere, or defaulting to a value the arm takes
            given = passed.get(dest, set())
            # a launch script passes a value the arm takes, or one only the shell knows (`$OPTIM`); for an enum's
            # member or an else arm, any value but the default may be the one
            unsure = otherwise or any("." in v for v in values)
            if _holds(needed, given) or any(not v.replace("_", "").replace("-", "").isalnum() for v in given) or (
                    unsure and given - default[0]) or _configured(needed, unsure, configs) or (
                    any(v.startswith(">") or _is_number(v) for v in needed) and any(f" {dest} " in words for words in configs)):
                continue  # (a number a config sets is out of sight: any config naming the option may set it)
            shown = ", ".join(_shown(v) for v in values[:3]) + (", ..." if len(values) > 3 else "")
            # the values as written: the caller splits the name into words, camelCase included (fp8Activation)
            written = [(_value(v) if "." in v else v).removeprefix(CONTAINS) for v in values if not v.startswith(">")]
            named = sorted(v.removeprefix(CONTAINS) for v in needed) if set(dest.lower().split("_")) & mainstream \
                else [dest, *written]
            result[f.path].append((first, last, "_".join(named),
                                   f"`--{dest}` is {_defaults(default[0])} unless given ({default[1]}){carrier}, "
                                   f"and no launch script passes {shown}; {condition}"))
            if not otherwise and dest in option_choices and needed <= option_choices[dest][0]:
                chosen.add((f.path, first, last))
        for first, last, lines, condition in f.marker_arms:
            sources = [next((r for r in result.get(f.path, []) if r[0] <= line <= r[1]), None) for line in lines]
            if sources and all(r is not None for r in sources):
                result[f.path].append((first, last, sources[0][2], f"{condition}, set only at line "
                                       f"{', '.join(map(str, lines))}, under: {sources[0][3]}"))
    if with_choices:
        return {path: [(*r, (path, r[0], r[1]) in chosen) for r in ranges] for path, ranges in result.items()}
    return result


def _parameter_option_arms(facts, context: ProjectContext, option_choices: dict) -> dict[str, list[tuple]]:
    """path → arms (as switched_options reads them) of `if launcher == "slurm":` on a parameter named like an option
    whose declared choices hold the values (facts' parameter_arms), where the option's declaring files are the arm's or
    import it, and every call of the function in the project passes the parameter by keyword, none as a literal: the
    value is the option's (AnimateDiff's `init_dist(launcher=launcher)` from `main(launcher=args.launcher)`). Without
    declared choices, a call handing the option on under the parameter's name ties them (metaseq's
    `ModelParallelMultiheadAttention(attn_variant=getattr(args, "attn_variant", "default"))`, the arm `if
    self.xf_eff_attn:` on `self.xf_eff_attn = attn_variant == AttentionVariants.XFORMERS`): switched_options weighs
    the arm against the option's default and the launch scripts."""
    if not any(f.parameter_arms for f in facts):
        return {}
    handed = {found for f in facts for found in f.option_keywords}  # (callee, option) a call hands on by name
    if not (option_choices or handed):
        return {}
    calls, escaped, _ = project_calls(facts)
    passed: dict[str, list[tuple[str, tuple[int, list[str]]]]] = defaultdict(list)  # callee → (file, its calls)
    for f in facts:
        for name, record in f.default_passed.items():
            passed[name].append((f.path, record))
    packages = package_folders(facts, context.source_roots)
    result: dict[str, list[tuple]] = defaultdict(list)
    for f in facts:
        for first, last, parameter, values, condition, callee, index in f.parameter_arms:
            found = option_choices.get(parameter)
            shapes = calls.get(callee, []) + calls.get(own_key(f.path, callee), [])
            # the option's value: a choice of it the declaring scripts pass on, or the option a call hands on by name
            # (metaseq's `attn_variant=getattr(args, "attn_variant", "default")`; switched_options then asks its default)
            chosen = found is not None and {v.lower() for v in values} <= found[0] \
                and _declarers_import(f, found, facts, packages)
            if not chosen:
                # handed on: the product's calls decide (a test building the class with its own arguments runs no
                # product path), and a name exported in `__all__` is no call that could pass another value
                if (callee, parameter) not in handed:
                    continue
                shapes = [(where, shape) for where, shape in shapes if context.of(where).role in COUNTED_ROLES]
                callers = [(where, record) for where, record in passed.get(callee, [])
                           if context.of(where).role in COUNTED_ROLES]
            else:
                if callee in escaped:
                    continue
                callers = passed.get(callee, [])
            if not shapes or not callers or not all(parameter in keywords for _, (_, keywords) in callers) \
                    or any(k.startswith(parameter + "=") for _, (_, _, keywords, _) in shapes for k in keywords):
                continue
            result[f.path].append((first, last, parameter, values,
                                   f"{condition} (every call of {callee}() passes `{parameter}`)", False))
    return dict(result)




def _enum_values(facts) -> dict[str, str]:
    """`AttentionVariants.XFORMERS` → "xformers_default" for the project's enums' string members (facts.enum_members);
    a member two enums of one name spell differently stays unresolved."""
    found: dict[str, set[str]] = defaultdict(set)
    for f in facts:
        for cls, member, value in f.enum_members:
            found[f"{cls}.{member}"].add(value)
    return {member: next(iter(values)) for member, values in found.items() if len(values) == 1}


def _unset_config_value(key: str, values: tuple[str, ...], path: str, facts, passed: dict[str, set[str]]) -> str | None:
    """Why an arm testing a config's `key` for `values` (`opt_config['type'] == 'adam8bit'`, switches.config_value_test)
    is opt-in, or None: the project's config files (YAML/JSON) set the key, none writes a value the arm takes, no launch
    script passes one, and no other file of code writes it (a defaults dict, a choices list: the arm's own file writes it
    only in such tests, facts._only_tested). Round 14 k-diffusion: train.py's `adam8bit` optimizer and config.py's
    `loglogistic` sigma density, `type`s none of configs/*.json names."""
    naming = sorted(f.path for f in facts if f.path.endswith(CONFIG_SUFFIXES) and f" {key} " in f.words)
    if not naming:
        return None  # no config of the project chooses this key: the value comes from elsewhere
    if any(f" {value} " in f.words for value in values for f in facts
           if f.path != path and not f.path.endswith(PROSE_SUFFIXES)) or set(values) & passed.get(key, set()):
        return None
    shown = ", ".join(f'"{v}"' for v in values[:3]) + (", ..." if len(values) > 3 else "")
    where = naming[0] + (f" and {len(naming) - 1} more" if len(naming) > 1 else "")
    return (f"config key `{key}` is {shown} in none of the project's config files that set it ({where}), and no other "
            "code of the project writes that value")


def _unset_path_value(path: str, values: tuple[str, ...], facts, defaults: dict, passed: dict[str, set[str]],
                      configs: list[str]) -> str | None:
    """Why an arm testing a config's attribute path (`config.TRAIN.OPTIMIZER.NAME`) for `values` is opt-in, or None:
    the project writes the path only with literals and options (config_paths.path_values), none of which takes the
    arm (an option's string defaults included), no launch command passes a value the arm takes to any option (yacs'
    `--opts TRAIN.OPTIMIZER.NAME fused_adam`), and no config file writes one."""
    found = path_values(path, facts)
    if found is None:
        return None
    literals, options, first = found
    needed = {_value(v) for v in values}
    held = literals | {v for dest in options for v in defaults.get(dest, (set(), ""))[0]}
    if not needed or _holds(needed, held | set().union(*passed.values())) or _configured(needed, False, configs):
        return None
    by = " or " + ", ".join(f"`--{dest}`" for dest in sorted(options)) if options else ""
    shown = ", ".join(_shown(v) for v in values[:3]) + (", ..." if len(values) > 3 else "")
    return (f"config `{path}` is {_defaults(literals)} unless a config file{by} sets it ({first}), and no launch "
            f"script or config file passes {shown}")


def _configured(needed: set[str], unsure: bool, configs: list[str]) -> bool:
    """A YAML/JSON config of the project writes a value the arm takes (`"optim": "adamw_bnb_8bit"` in a Trainer's JSON
    arguments); an enum member's string is out of sight, so any word it starts (adamw_bnb → adamw_bnb_8bit); a
    substring the arm needs, anywhere in a word."""
    return any((value[len(CONTAINS):] if value.startswith(CONTAINS) else f" {value}" if unsure else f" {value} ") in words
               for value in needed for words in configs)


def _holds(needed: set[str], values: set[str]) -> bool:
    """Does one of `values` take the arm: equal to a value it needs, holding a substring it needs (`*mamba`), or a
    number past the bound it needs (`>0`; a value that is no number may be anything)?"""
    return any(_takes(value, given) for value in needed for given in values)


def _takes(needed: str, given: str) -> bool:
    if needed.startswith(CONTAINS):
        return needed[len(CONTAINS):] in given
    if needed.startswith(">"):
        bound = needed.lstrip(">=")
        try:
            number = float(given)
        except ValueError:
            return True
        return number >= float(bound) if needed.startswith(">=") else number > float(bound)
    return needed == given


def _defaults(values: set[str]) -> str:
    """An option's defaults as the reason shows them: `"adamw_torch"`, or `one of "", "x052", "x070"` where the
    project declares it in several places."""
    shown = ", ".join(_quoted(v) for v in sorted(values)[:4]) + (", ..." if len(values) > 4 else "")
    return shown if len(values) == 1 else f"one of {shown}"


def _quoted(value: str) -> str:
    """A string default quoted, a number (`16`, `-1`) as written."""
    return value if _is_number(value) else f'"{value}"'


def _is_number(value: str) -> bool:
    return value.removeprefix("-").replace(".", "", 1).isdigit()


def _shown(value: str) -> str:
    if value.startswith(CONTAINS):
        return f'a value holding "{value[len(CONTAINS):]}"'
    if value.startswith(">"):
        return f"a value {'>=' if value.startswith('>=') else '>'} {value.lstrip('>=')}"
    return value if "." in value else _quoted(value)


def carried_options(facts) -> dict[str, tuple[str, set[str], str]]:
    """Environment variable → (the command-line option the project sets it from, the literal values code of the
    project also sets it to, where it is carried), for a variable set from one option only and otherwise only to
    literals by Python code (env_options.carriers): a variable a shell script, config or Dockerfile writes, or that
    code sets from anything else, has values out of sight."""
    sets: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for f in facts:
        for name, value in f.env_carriers:
            sets[name].append((value, f.path))
    if not sets:
        return {}
    outside = {name for name, paths in writers(sets, facts).items()
               if any(not p.endswith((".py", ".ipynb")) for p in paths)}
    result = {}
    for name, values in sets.items():
        options = {value[1:] for value, _ in values if value.startswith("@")}
        if len(options) != 1 or name in outside or any(value == "?" for value, _ in values):
            continue
        where = next(path for value, path in values if value.startswith("@"))
        result[name] = (options.pop(), {value[1:].lower() for value, _ in values if value.startswith("=")},
                        f", carried in ${name} ({where})")
    return result


def rejected_arms(facts, context: ProjectContext) -> dict[str, list[tuple[int, int, str]]]:
    """path → (first line, last line, why) of product code's arms testing a parameter named like a command-line option
    for values the option's declared choices leave out (switches.option_value_test's `@precision`): argparse stops a
    run that gives one, so, unless another file passes the value itself, the arm never runs, opt-in or not."""
    option_choices = _declared_choices(facts)
    result: dict[str, list[tuple[int, int, str]]] = defaultdict(list)
    packages = package_folders(facts, context.source_roots) if option_choices else set()
    for f in facts if option_choices else []:
        if context.of(f.path).role not in COUNTED_ROLES:
            continue
        for first, last, dest, values, condition in f.option_value_arms:
            if dest.startswith(PARAMETER_PREFIX) and _declarers_import(f, option_choices.get(dest[len(PARAMETER_PREFIX):]),
                                                                       facts, packages):
                why = _rejected(dest[len(PARAMETER_PREFIX):], values, f.path, facts, option_choices)
                if why is not None:
                    result[f.path].append((first, last, f"{why}; {condition}"))
    return dict(result)


def _declarers_import(f, found: tuple[set[str], str, set[str]] | None, facts, packages: set[str]) -> bool:
    """Does every file declaring the option import the arm's module, or is it that file? The value reaches a
    parameter of that name from the script that parsed it (open_flamingo's train.py imports train_utils); another
    module's `precision` (eval/utils.py, fed from model arguments evaluate.py parses by hand) is another value."""
    if found is None:
        return False
    names = import_names(f.path, f.module, packages) if f.module else set()
    folder, stem = path_view(f.path).parent, path_view(f.path).stem
    declaring = [d for d in facts if d.path in found[2]]
    return bool(declaring) and all(
        d.path == f.path or any(n == m or n.startswith(m + ".") for n in d.imports
                                for m in (names | {stem} if path_view(d.path).parent == folder else names))  # a sibling
        for d in declaring)


def _declared_choices(facts) -> dict[str, tuple[set[str], str, set[str]]]:
    """dest → (the choices, where first declared, the declaring files) of the options every declaration of which lists
    its choices."""
    listed: dict[str, tuple[set[str], str, set[str]]] = {}
    with_choices: dict[str, int] = defaultdict(int)
    for f in facts:
        for dest, choices in f.option_choices:
            found = listed.setdefault(dest, (set(), f.path, set()))
            found[0].update(c.lower() for c in choices)
            found[2].add(f.path)
            with_choices[dest] += 1
    if not listed:
        return {}
    declarations: dict[str, int] = defaultdict(int)
    for f in facts:
        for dest, _, _, _ in f.options:
            declarations[dest] += dest in listed
    return {dest: found for dest, found in listed.items() if declarations[dest] == with_choices[dest]}


def _rejected(dest: str, values: tuple[str, ...], path: str, facts, option_choices: dict) -> str | None:
    """Why an arm testing a parameter named like an option for values the option's choices leave out never runs:
    argparse rejects them (open_flamingo's `get_autocast(precision)`: `precision == "amp"`, and `--precision` accepts
    amp_bf16, amp_bfloat16, bf16, fp16, fp32). None where a value is a choice, or a file beside the arm's writes one."""
    found = option_choices.get(dest)
    needed = {_value(v) for v in values}
    if found is None or not needed or any(v.startswith((">", CONTAINS)) or "." in v for v in values) or needed & found[0]:
        return None
    if any(writers([v], facts).get(v, set()) - {path} for v in values if len(v) >= MIN_NAME):
        return None
    shown = ", ".join(sorted(found[0])[:6]) + (", ..." if len(found[0]) > 6 else "")
    return (f"`--{dest}` accepts only {shown} ({found[1]}), so the parameter `{dest}` it is passed on as never holds "
            f"{', '.join(sorted(needed))}")


def _value(text: str) -> str:
    """An arm's value as a launch script would pass it: `OptimizerNames.ADAMW_BNB` → adamw_bnb (its string is the
    enum's, out of sight; the member's name is what the defaults are compared with)."""
    return text.rsplit(".", 1)[-1].lower() if "." in text and text.rsplit(".", 1)[-1].isupper() else text.lower()


def _framework_options(facts, conventions: OptInConventions, declared: dict, defaults: dict) -> dict[str, set[str]]:
    """Adds to `defaults` the options of known frameworks' arguments classes the project imports and does not declare
    itself; returns the choices of those that list them (for else arms)."""
    choices: dict[str, set[str]] = {}
    if not conventions.framework_options:
        return choices
    imported = {(name.split(".", 1)[0], name.rsplit(".", 1)[-1]) for f in facts for name in f.imports}
    for option in conventions.framework_options:
        if option.option in declared or option.option in defaults:
            continue
        if not any((option.package, cls) in imported for cls in option.classes):
            continue
        defaults[option.option] = ({v.lower() for v in option.defaults},
                                   f"{option.package} {option.classes[0]}, {option.versions}")
        if option.choices:
            choices[option.option] = {v.lower() for v in option.choices}
    return choices


def _choices(counted, conventions: OptInConventions) -> dict[str, tuple[str, int, str]]:
    defaults = {d.lower() for d in (*conventions.default_choices, *conventions.mode_choices)}
    found: dict[str, tuple[str, int, str]] = {}
    for f in counted:
        for value, line, condition, has_default in f.choices:
            lowered = value.lower()
            if has_default and lowered not in defaults and len(lowered) >= 4 and lowered.isidentifier():
                found.setdefault(lowered, (f.path, line, condition))
    return found


def _named_only(facts, counted, context: ProjectContext) -> dict[str, str]:
    """Modules of product code that no product code imports and a string of the project names by their dotted
    name: plugins and overrides loaded by name."""
    imported: set[str] = set()
    for f in counted:
        for name in f.imports:
            if not name.startswith(f.module + ".") or not f.module:
                imported.add(name)
    names: dict[str, tuple[str, int]] = {}
    for f in facts:
        for text, line in f.module_strings:
            names.setdefault(text, (f.path, line))
    if not names:
        return {}
    by_prefix: dict[str, tuple[str, int]] = {}
    for text, where in names.items():
        parts = text.split(".")
        for end in range(2, len(parts) + 1):
            by_prefix.setdefault(".".join(parts[:end]), where)
    imported_prefixes = defaultdict(bool)
    for name in imported:
        parts = name.split(".")
        for end in range(1, len(parts) + 1):
            imported_prefixes[".".join(parts[:end])] = True
    result = {}
    for f in counted:
        if (not f.module or PurePosixPath(f.path).name == "__init__.py" or f.main_guard
                or f.module not in by_prefix or imported_prefixes.get(f.module)):
            continue
        path, line = by_prefix[f.module]
        if path == f.path:
            continue
        result[f.path] = f"loaded by name only, when a configuration lists it: '{f.module}' is named at {path}:{line}; no product code imports it"
    return result
