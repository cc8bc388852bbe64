"""What a guarded import falls back to (analyzer/context/import_fallbacks.py), on parsed snippets: the first name an
ImportError handler imports, calls or binds, the code that checks a module-level flag, or the call after a guard in a
function. Each expectation is read from the module's docstrings; tests/test_ext_fallback.py runs it through whole
analyses."""

from __future__ import annotations

import pytest
from ascend_feasibility.analyzer.context import import_fallbacks as fb
from ascend_feasibility.analyzer.reading import parsing


def statement(code: str, needle: str, occurrence: int = 0):
    """The import statement at the `occurrence`-th `needle`."""
    root = parsing.parse("python", code.encode())
    start = -1
    for _ in range(occurrence + 1):
        start = code.index(needle, start + 1)
    node = root.descendant_for_byte_range(start, start + len(needle))
    while node.type not in {"import_statement", "import_from_statement"}:
        node = node.parent
    return node


def fallback(code: str, needle: str = "import", cuda_only: bool = False, occurrence: int = 0):
    return fb.import_fallback(statement(code, needle, occurrence), cuda_only)


LIGHTCONV = """def LightweightConv(input_size):
    if torch.cuda.is_available():
        try:
            from .lightconv_layer import LightconvLayer
            return LightconvLayer(input_size)
        except ImportError as e:
            print(e)
    return LightweightConv1dTBC(input_size)
"""

LIBNAT = """def load_libnat():
    try:
        from fairseq import libnat_cuda
        return libnat_cuda, True
    except ImportError as e:
        print(str(e) + "... falling back to CPU version")
        try:
            from fairseq import libnat
            return libnat, False
        except ImportError as e:
            import sys
            sys.stderr.write("ERROR: missing libnat_cuda")
            raise e
"""

FLAG = """try:
    from fairseq import ngram_repeat_block_cuda
    EXTENSION_BUILT = True
except ImportError:
    EXTENSION_BUILT = False


def is_cuda_extension_usable() -> bool:
    x = 1
    if not EXTENSION_BUILT or not torch.cuda.is_available():
        return False
    return True
"""


def test_lightweight_conv_falls_back_to_the_call_after_the_if_around_its_try():
    assert fallback(LIGHTCONV) == (2, "LightweightConv1dTBC")


def test_load_libnat_falls_back_to_the_cpu_module_its_handler_imports():
    assert fallback(LIBNAT, "from fairseq import libnat_cuda") == (2, "libnat")


def test_the_inner_import_whose_handler_raises_has_none():
    assert fallback(LIBNAT, "from fairseq import libnat", occurrence=1) is None


def test_a_module_level_flag_falls_back_to_the_code_that_checks_it():
    assert fallback(FLAG) == (10, "the code that checks EXTENSION_BUILT")


@pytest.mark.parametrize("check", [
    "if not EXTENSION_BUILT:\n    raise ImportError('build it')\n",
    "if EXTENSION_BUILT:\n    pass\nelse:\n    raise ImportError('build it')\n",
    "if EXTENSION_BUILT:\n    pass\nelse:\n    # no way on\n    raise ImportError('build it')\n",
    "if x:\n    pass\nelif not EXTENSION_BUILT:\n    raise ImportError('build it')\n",
])
def test_a_flag_a_check_of_which_only_raises_is_no_fallback(check):
    assert fallback(FLAG + check) is None


@pytest.mark.parametrize("check, line", [
    ("if not EXTENSION_BUILT:\n    raise ImportError('a')\n    y = 1\n", 10),  # a raise among other statements
    ("if not EXTENSION_BUILT:\n    # only a comment\n    pass\n", 10),
    ("if EXTENSION_BUILT:\n    pass\nelse:\n    y = 1\n", 10),
])
def test_other_checks_of_the_flag_keep_the_fallback(check, line):
    assert fallback(FLAG + check) == (line, "the code that checks EXTENSION_BUILT")


def test_an_elif_is_a_check():
    code = FLAG.split("def is_cuda")[0] + "if x:\n    pass\nelif EXTENSION_BUILT:\n    y = 2\n"
    assert fallback(code) == (10, "the code that checks EXTENSION_BUILT")


def test_a_flag_nobody_checks_is_no_fallback():
    code = "try:\n    import xformers.ops as xops\nexcept ImportError:\n    xops = None\n\nprint(xops)\n"
    assert fallback(code) is None


def test_every_flag_a_handler_sets_is_looked_for_and_the_first_is_named():
    code = ("try:\n    import a_cuda\nexcept ImportError:\n    A = None\n    B = False\n"
            "def f():\n    if B:\n        return 1\n")
    assert fallback(code) == (7, "the code that checks A")


@pytest.mark.parametrize("handler", [
    "    A = None\n    print('no')\n",  # more than a flag
    "    A = 0\n",  # not False or None
    "    self.a = None\n",
    "    A = B = None\n",
])
def test_a_handler_that_does_more_than_set_a_flag_has_no_flag(handler):
    code = f"try:\n    import a_cuda\nexcept ImportError:\n{handler}def f():\n    if A:\n        return 1\n"
    found = fallback(code)
    assert found is None or found[1] != "the code that checks A"


def test_a_flag_set_inside_a_function_is_read_by_what_follows_instead():
    code = "def f():\n    try:\n        import a_cuda\n    except ImportError:\n        a_cuda = None\n    if a_cuda:\n        g()\n"
    assert fallback(code) is None  # the try's body does not return


def test_a_flag_check_is_read_in_its_condition_only_up_to_the_walk_bound(monkeypatch):
    many = "y = 1\n" * 30
    code = FLAG.replace("def is_cuda", many + "def is_cuda")
    assert fallback(code) == (40, "the code that checks EXTENSION_BUILT")
    original = fb._walk
    # `not EXTENSION_BUILT or ...`: the flag is the 3rd node of the condition's walk
    monkeypatch.setattr(fb, "_walk", lambda node, limit=400: original(node, min(limit, 2)))
    assert fallback(code) is None
    monkeypatch.setattr(fb, "_walk", lambda node, limit=400: original(node, min(limit, 3)))
    assert fallback(code) == (40, "the code that checks EXTENSION_BUILT")


@pytest.mark.parametrize("clause", ["except ImportError:", "except ModuleNotFoundError:", "except Exception:",
                                     "except BaseException:", "except:", "except (OSError, ImportError):",
                                     "except ImportError as e:", "except errors.ImportError:"])
def test_handlers_that_catch_an_import_error(clause):
    code = f"try:\n    import a_cuda\n{clause}\n    import a_cpu\n"
    assert fallback(code) == (1, "a_cpu")


@pytest.mark.parametrize("clause", ["except OSError:", "except (OSError, ValueError):", "except ImportErrorX:"])
def test_handlers_that_catch_something_else(clause):
    code = f"try:\n    import a_cuda\n{clause}\n    import a_cpu\n"
    assert fallback(code) is None


def test_the_first_handler_that_names_something_wins():
    code = ("try:\n    import a_cuda\nexcept OSError:\n    import b\nexcept ImportError:\n    print('x')\n"
            "except ModuleNotFoundError:\n    import a_cpu\n")
    assert fallback(code) == (1, "a_cpu")


def test_a_raise_in_any_handler_gives_none():
    code = "try:\n    import a_cuda\nexcept ImportError:\n    import a_cpu\nexcept Exception:\n    raise\n"
    assert fallback(code) is None
    nested = "try:\n    import a_cuda\nexcept ImportError:\n    if x:\n        raise\n    import a_cpu\n"
    assert fallback(nested) == (1, "a_cpu")  # only the handler's own statements count


@pytest.mark.parametrize("body, name", [
    ("    from apex.normalization import FusedLayerNorm as LN\n", "FusedLayerNorm"),
    ("    import apex.normalization as n, b\n", "apex.normalization"),
    ("    import a_cpu\n", "a_cpu"),
    ("    x = a.b()\n", "a.b"),
    ("    x: bool = use_cpu\n", "use_cpu"),
    ("    FusedLayerNorm = torch.nn.LayerNorm\n", "torch.nn.LayerNorm"),
    ("    FusedLayerNorm = LayerNorm\n", "LayerNorm"),
    ("    logger.warning('x')\n    use_cpu_kernel()\n", "use_cpu_kernel"),
    ("    warnings.warn('x')\n    kernels.cpu_version(1)\n", "kernels.cpu_version"),
    ("    print('no');\n    x = repr(1) + str(2) + format(3)\n    y = make()\n", "make"),
    ("    raise_later = MissingError('x')\n    k = Impl()\n", "Impl"),
    ("    e = WrongException(1)\n    k = Impl()\n", "Impl"),
])
def test_what_a_handler_names(body, name):
    code = f"try:\n    import a_cuda\nexcept ImportError:\n{body}"
    assert fallback(code) == (1, name)


@pytest.mark.parametrize("body", [
    "    sys.exit(1)\n", "    os._exit(1)\n", "    pytest.skip('x')\n", "    pytest.importorskip('x')\n",
    "    require_version('x')\n", "    logger.error('x')\n", "    logging.exception('x')\n", "    log.info('x')\n",
    "    log.debug('x')\n", "    sys.stderr.write('x')\n", "    abort()\n", "    self.fail('x')\n",
    "    require_version_core('x')\n", "    x = 1\n", "    x = 'a'\n",
])
def test_what_a_handler_does_not_name(body):
    code = f"try:\n    import a_cuda\nexcept ImportError:\n{body}"
    assert fallback(code) is None


def test_a_returned_name_in_a_handler_is_the_fallback():
    code = "def f():\n    try:\n        import a_cuda\n    except ImportError:\n        return cpu_impl\n"
    assert fallback(code) == (2, "cpu_impl")
    code = "def f():\n    try:\n        import a_cuda\n    except ImportError:\n        return\n"
    assert fallback(code) is None
    code = "def f():\n    try:\n        import a_cuda\n    except ImportError:\n        return 'cpu'\n"
    assert fallback(code) is None


def test_an_assignment_counts_only_as_a_statement_of_its_own():
    code = "try:\n    import a_cuda\nexcept ImportError:\n    f(lambda: (x := cpu))\n"
    assert fallback(code) == (1, "f")
    code = "try:\n    import a_cuda\nexcept ImportError:\n    with ctx:\n        Norm = torch.nn.LayerNorm\n"
    assert fallback(code) is None  # the with statement is not an expression statement


def test_the_if_whose_whole_body_is_the_try_is_the_guard():
    code = "if ok:\n    try:\n        import a_cuda\n    except ImportError:\n        import a_cpu\n"
    assert fallback(code) == (1, "a_cpu")
    not_alone = "if ok:\n    x = 1\n    try:\n        import a_cuda\n    except ImportError:\n        import a_cpu\n"
    assert fallback(not_alone) == (3, "a_cpu")
    with_else = ("if ok:\n    try:\n        import a_cuda\n    except ImportError:\n        import a_cpu\n"
                 "else:\n    pass\n")
    assert fallback(with_else) == (2, "a_cpu")
    with_elif = ("if ok:\n    try:\n        import a_cuda\n    except ImportError:\n        import a_cpu\n"
                 "elif b:\n    pass\n")
    assert fallback(with_elif) == (2, "a_cpu")
    in_loop = "for i in r:\n    try:\n        import a_cuda\n    except ImportError:\n        import a_cpu\n"
    assert fallback(in_loop) == (2, "a_cpu")


def test_only_the_try_body_is_the_attempt():
    # an import in the handler or else of a try is not what the try attempts
    code = "try:\n    import a\nexcept ImportError:\n    import b\n"
    assert fallback(code, "import b") is None
    code = "try:\n    x = 1\nexcept ImportError:\n    pass\nelse:\n    import b\n"
    assert fallback(code, "import b") is None
    outer = "try:\n    if x:\n        import a_cuda\nexcept ImportError:\n    import a_cpu\n"
    assert fallback(outer) == (1, "a_cpu")


def test_a_try_around_a_function_does_not_guard_its_imports():
    code = "try:\n    def f():\n        import a_cuda\nexcept ImportError:\n    import a_cpu\n"
    assert fallback(code) is None
    code = "try:\n    class A:\n        import a_cuda\nexcept ImportError:\n    import a_cpu\n"
    assert fallback(code) is None


# after the guard, in a function ------------------------------------------------------------------------------
def test_what_follows_a_try_whose_body_returns():
    code = ("def f(x):\n    try:\n        import a_cuda\n        return a_cuda.run(x)\n    except ImportError:\n"
            "        pass\n    # the CPU path\n    return slow(x)\n")
    assert fallback(code) == (2, "slow")


@pytest.mark.parametrize("after", [
    "    raise RuntimeError('x')\n", "    # nothing\n", "", "    return 1\n",
])
def test_nothing_usable_after_the_guard_is_none(after):
    code = "def f(x):\n    try:\n        import a_cuda\n        return a_cuda.run(x)\n    except ImportError:\n        pass\n" + after
    assert fallback(code) is None


def test_a_guarded_block_that_goes_on_has_no_fallback_after_it():
    code = ("def f(x):\n    try:\n        import a_cuda\n        y = a_cuda.run(x)\n    except ImportError:\n"
            "        pass\n    return slow(x)\n")
    assert fallback(code) is None
    nested = ("def f(x):\n    try:\n        import a_cuda\n        if x:\n            return a_cuda.run(x)\n"
              "    except ImportError:\n        pass\n    return slow(x)\n")
    assert fallback(nested) is None  # only the block's own return counts


def test_after_a_module_level_try_come_definitions_not_a_fallback():
    code = "try:\n    import a_cuda\nexcept ImportError:\n    pass\nslow()\n"
    assert fallback(code) is None
    method = ("class A:\n    def f(self, x):\n        try:\n            import a_cuda\n            return a_cuda.run(x)\n"
              "        except ImportError:\n            pass\n        return slow(x)\n")
    assert fallback(method) == (3, "slow")


def test_a_cuda_only_if_with_a_fallback_after_it():
    code = "def f(x):\n    if x.is_cuda:\n        from .k import kernel\n        return kernel(x)\n    return fallback(x)\n"
    assert fallback(code, cuda_only=True) == (2, "fallback")
    assert fallback(code) is None  # only with cuda_only
    nested = ("def f(x):\n    if x.is_cuda:\n        for i in r:\n            from .k import kernel\n"
              "        return kernel(x)\n    return fallback(x)\n")
    assert fallback(nested, cuda_only=True) == (2, "fallback")


@pytest.mark.parametrize("code", [
    "def f(x):\n    if x.is_cuda:\n        from .k import kernel\n        return kernel(x)\n    else:\n        return g(x)\n",
    "def f(x):\n    if x.is_cuda:\n        from .k import kernel\n        return kernel(x)\n    elif y:\n        return g(x)\n",
    "def f(x):\n    if x.is_cuda:\n        from .k import kernel\n        y = kernel(x)\n    return fallback(x)\n",
    "def f(x):\n    from .k import kernel\n    return kernel(x)\n",
    "if cuda:\n    from .k import kernel\nfallback()\n",
    "def f(x):\n    if x.is_cuda:\n        def g():\n            from .k import kernel\n        return g\n    return h(x)\n",
])
def test_cuda_only_ifs_without_a_fallback(code):
    assert fallback(code, cuda_only=True) is None


def test_the_walk_of_a_handler_is_bounded():
    nodes = list(fb._walk(parsing.parse("python", b"x = [" + b"1, " * 500 + b"]\n")))
    assert len(nodes) == 400
    assert [n.type for n in fb._walk(parsing.parse("python", b"a(b)\n"))] == [
        "module", "expression_statement", "call", "identifier", "argument_list", "identifier"]
    assert len(list(fb._walk(parsing.parse("python", b"x = 1\n" * 10), 3))) == 3


def test_an_import_is_read_without_a_cuda_only_guard_by_default():
    code = "def f(x):\n    if x.is_cuda:\n        from .k import kernel\n        return kernel(x)\n    return fallback(x)\n"
    assert fb.import_fallback(statement(code, "from .k")) is None


def test_a_flag_handler_with_a_target_that_is_no_name_or_no_value_has_no_flag():
    checked = "if B:\n    x = 1\n"
    code = f"try:\n    import a_cuda\nexcept ImportError:\n    self.a = None\n    B = None\n{checked}"
    assert fallback(code) is None
    code = f"try:\n    import a_cuda\nexcept ImportError:\n    A: bool\n    B = None\n{checked}"
    assert fallback(code) is None


def test_flag_checks_are_found_far_down_the_module():
    code = FLAG.replace("def is_cuda", "y = 1\n" * 200 + "def is_cuda")
    assert fallback(code) == (210, "the code that checks EXTENSION_BUILT")


def test_flag_checks_are_read_anywhere_in_the_module():
    """The module's if/elif conditions come from one query of its tree, so a check after 20,000 nodes (where the
    earlier bounded walk stopped) is read as well."""
    head = "try:\n    import a_cuda\nexcept ImportError:\n    A = None\n"
    far = head + "pass\n" * 20000 + "if A:\n    x = 1\n"
    assert fallback(far) == (4 + 20000 + 1, "the code that checks A")
    unchecked = head + "pass\n" * 10 + "if B:\n    x = 1\n"
    assert fallback(unchecked) is None


def test_a_comment_among_raises_still_only_raises():
    code = FLAG + "if not EXTENSION_BUILT:\n    raise ImportError('a')\n    # unreachable\n    raise ImportError('b')\n"
    assert fallback(code) is None


def test_a_module_level_try_is_never_followed_even_when_its_body_returns():
    # not valid Python, but parsed: the docstring's rule holds
    code = "try:\n    import a_cuda\n    return a_cuda\nexcept ImportError:\n    pass\nslow()\n"
    assert fallback(code) is None


def test_a_raise_after_the_guard_is_no_fallback_whatever_it_calls():
    code = ("def f(x):\n    try:\n        import a_cuda\n        return a_cuda.run(x)\n    except ImportError:\n"
            "        pass\n    raise make_error()\n")
    assert fallback(code) is None


def test_a_class_stops_the_search_for_the_cuda_only_if():
    code = ("def f(x):\n    if x.is_cuda:\n        class K:\n            from .k import kernel\n        return K\n"
            "    return fallback(x)\n")
    assert fallback(code, "from .k", cuda_only=True) is None


@pytest.mark.parametrize("other", ["else:\n        y = 1\n", "elif y:\n        y = 1\n"])
def test_a_cuda_only_if_with_another_arm_and_code_after_it(other):
    code = (f"def f(x):\n    if x.is_cuda:\n        from .k import kernel\n        return kernel(x)\n    {other}"
            "    return fallback(x)\n")
    assert fallback(code, "from .k", cuda_only=True) is None


def test_a_try_in_a_class_body_inside_a_function_reads_flags_like_a_module():
    code = ("def outer():\n    class A:\n        try:\n            import a_cuda\n        except ImportError:\n"
            "            A_OK = False\n        if A_OK:\n            x = 1\n")
    assert fallback(code) == (7, "the code that checks A_OK")


@pytest.mark.parametrize("body, name", [
    ("    import a_cpu\tas cpu\n", "a_cpu"),
    ("    from b import a_cpu\tas cpu\n", "a_cpu"),
    ("    import a_cpu  as  cpu\n", "a_cpu"),
    ("    from b import (a_cpu as\n        cpu)\n", "a_cpu"),
])
def test_an_aliased_import_is_named_by_its_name_whatever_the_spacing(body, name):
    code = f"try:\n    import a_cuda\nexcept ImportError:\n{body}"
    assert fallback(code) == (1, name)


# TGI's bloom_modeling.py: the flag is set False before the guard and True in the try after the import; the handler
# passes. Where the import fails the flag stays False, and the code that checks it runs the PyTorch arm.
FLAG_SET_IN_TRY = """CUSTOM_KERNELS_ENABLED = False
if torch.cuda.is_available():
    try:
        from custom_kernels import fused_bloom_attention_cuda

        CUSTOM_KERNELS_ENABLED = True
    except ImportError:
        pass


def forward(x):
    if CUSTOM_KERNELS_ENABLED and x.shape[-1] < 4096:
        return fused_bloom_attention_cuda.forward(x)
    else:
        return compute_attention(x)
"""


def test_a_flag_the_try_sets_after_the_import_falls_back_to_its_check():
    assert fallback(FLAG_SET_IN_TRY) == (12, "the code that checks CUSTOM_KERNELS_ENABLED")


def test_a_flag_set_in_the_try_but_never_false_before_gives_no_fallback():
    code = FLAG_SET_IN_TRY.replace("CUSTOM_KERNELS_ENABLED = False\n", "")
    assert fallback(code) is None


def test_a_flag_set_in_the_try_whose_only_check_raises_gives_no_fallback():
    code = FLAG_SET_IN_TRY.replace("        return compute_attention(x)", "        raise RuntimeError('no kernel')")
    assert fallback(code) is None


def test_a_flag_set_in_the_try_with_a_handler_that_exits_gives_no_fallback():
    code = FLAG_SET_IN_TRY.replace("        pass", "        sys.exit(1)")
    assert fallback(code) is None


# round 41 V-3: a module-level guard whose handler offers nothing in the import's place (CenterPoint's spconv)
REPORTS_ONLY = """try:
    from spconv.utils import rbbox_intersection, rbbox_iou
except:
    print("Import spconv fail, no support for sparse convolution!")


def rinter_cc(boxes, qboxes):
    return rbbox_iou(boxes, qboxes)
"""
RETRIES = """try:
    import spconv.pytorch as spconv
except:
    import spconv as spconv
"""


def test_a_handler_that_only_reports_or_passes_offers_no_alternative():
    assert fb.without_alternative(statement(REPORTS_ONLY, "from spconv"))
    passed = "try:\n    import apex\nexcept ImportError:\n    pass\n\n\ndef f(m):\n    return apex.amp.initialize(m)\n"
    assert fb.without_alternative(statement(passed, "import apex"))
    logged = passed.replace("    pass\n", "    logger.warning('no apex')\n    warnings.warn('x')\n")
    assert fb.without_alternative(statement(logged, "import apex"))


def test_an_import_used_only_inside_its_try_is_skipped_where_it_fails():
    # DeepSpeed deepspeed/runtime/zero/utils.py: apex's FusedAdam joins the list only where apex imports
    code = ("OPTIMIZERS = []\ntry:\n    import apex\n    OPTIMIZERS.append(apex.optimizers.FusedAdam)\n"
            "except ImportError:\n    pass\n")
    assert not fb.without_alternative(statement(code, "import apex"))


def test_a_handler_that_imports_the_same_package_again_retries_it():
    assert fb.retries_package(statement(RETRIES, "import spconv.pytorch"))
    assert fb.without_alternative(statement(RETRIES, "import spconv.pytorch"))


@pytest.mark.parametrize("code", [
    "try:\n    import apex\nexcept ImportError:\n    apex = None\n",  # a flag: the code that checks it decides
    "try:\n    from apex.normalization import FusedLayerNorm\nexcept ImportError:\n    FusedLayerNorm = torch.nn.LayerNorm\n",
    "try:\n    import spconv.pytorch as spconv\nexcept ImportError:\n    import torchsparse as spconv\n",
    "def f():\n    try:\n        import apex\n    except ImportError:\n        print('no apex')\n",  # lazy: callers decide
])
def test_a_handler_with_an_alternative_flag_or_in_a_function_is_left_optional(code):
    assert not fb.without_alternative(statement(code, "import"))
    assert not fb.retries_package(statement(code, "import"))


def test_a_handler_importing_the_package_only_for_type_checking_does_not_retry_it():
    # Megatron-LM megatron/core/extensions/transformer_engine.py
    code = ("try:\n    import transformer_engine as te\n    HAVE_TE = True\nexcept ImportError:\n"
            "    if TYPE_CHECKING:\n        import transformer_engine as te\n        HAVE_TE = True\n"
            "    else:\n        HAVE_TE = False\n")
    assert not fb.retries_package(statement(code, "import transformer_engine"))
    assert not fb.without_alternative(statement(code, "import transformer_engine"))


def test_a_flag_set_in_the_try_or_other_names_in_the_handler_are_alternatives():
    # Megatron-LM megatron/core/fp8_utils.py: HAVE_TE set in the try, checked after it
    flagged = ("HAVE_TE = False\ntry:\n    import transformer_engine\n\n    HAVE_TE = True\nexcept ImportError:\n"
               "    pass\n\nif HAVE_TE:\n    x = transformer_engine.common\n")
    assert not fb.without_alternative(statement(flagged, "import transformer_engine"))
    # megatron/elastification/router/hybrid_flex_router.py: the handler imports the project's own layers
    other = ("try:\n    from megatron.core.extensions.transformer_engine import TEColumnParallelLinear\n"
             "except ImportError:\n    from megatron.core.tensor_parallel.layers import ColumnParallelLinear\n")
    assert not fb.retries_package(statement(other, "from megatron"))
    # the same names from the same package again: a retry (torch._six's inf moved to torch)
    same = "try:\n    from torch._six import inf\nexcept ImportError:\n    from torch import inf\n"
    assert fb.retries_package(statement(same, "from torch._six"))


def test_a_parameter_or_another_import_of_the_same_spelling_is_no_use_of_the_import():
    # HunyuanDiT kohya_ss-hydit/sd-scripts/library/hunyuan_models.py
    code = ("try:\n    import xformers\nexcept:\n    pass\n\ntry:\n    from xformers.ops import attn\nexcept:\n"
            "    attn = None\n\n\nclass M:\n    def set_attn_mode(self, xformers, mem_eff):\n"
            "        if xformers:\n            self.mode = 'xformers'\n")
    assert not fb.without_alternative(statement(code, "import xformers"))
    used = code + "\n\ndef version():\n    return xformers.__version__\n"
    assert fb.without_alternative(statement(used, "import xformers"))
