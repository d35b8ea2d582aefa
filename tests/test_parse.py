"""The parser: positions, the AST it builds, and syntax errors with their place and hint."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from kernelcost.base import tree as ast
from kernelcost.base.errors import Code, KcostError
from kernelcost.base.tree import MAX_NAME_LENGTH
from kernelcost.lang.parse import MAX_BLOCK_NESTING, MAX_NESTING, MAX_TREE_DEPTH, parse, parse_file

GEMM_TILED = Path(__file__).parent.parent / "specs" / "gemm_tiled.kcost"


def syntax_error(text: str):
    """The one diagnostic of a text that does not parse."""
    with pytest.raises(KcostError) as raised:
        parse(text, "t.kcost")
    (diagnostic,) = raised.value.diagnostics
    return diagnostic


def test_gemm_tiled_parses_with_positions():
    kernel = parse_file(GEMM_TILED)
    assert kernel.name == "gemm_tiled"
    assert [p.name for p in kernel.params] == ["M", "N", "K", "T"]
    assert kernel.params[3].default == 128
    assert [t.name for t in kernel.tensors] == ["A", "B", "C"]
    outer = kernel.statements[0]
    assert isinstance(outer, ast.For) and outer.var == "i0"
    lines = GEMM_TILED.read_text().splitlines()
    line = next(n for n, text in enumerate(lines, 1) if text.lstrip().startswith("for i0"))
    assert (outer.span.line, outer.span.column) == (line, 5)  # where `for` stands in the file


def test_one_header_with_several_ranges_is_a_nest():
    kernel = parse("kernel k(n) { for i in 0..n, j in 0..i { y = 1 } }")
    outer = kernel.statements[0]
    inner = outer.body[0]
    assert (outer.var, inner.var) == ("i", "j")
    assert inner.span.column == 30  # the inner loop keeps the span of its own range


def test_positions_are_one_based_line_and_column():
    diagnostic = syntax_error("kernel k(n) {\n\ty = $\n}")
    assert (diagnostic.span.line, diagnostic.span.column) == (2, 6)


def test_caret_sits_under_the_offending_token_with_a_tab_in_the_line():
    with pytest.raises(KcostError) as raised:
        parse("kernel k(n) {\n\tfor i in 0 n {}\n}", "t.kcost")
    caret_line = raised.value.render().splitlines()[2]
    source_line = raised.value.render().splitlines()[1]
    assert source_line[caret_line.index("^")] == "n"


def test_carriage_returns_do_not_shift_lines():
    diagnostic = syntax_error("kernel k(n) {\r\n  y = $\r\n}\r\n")
    assert (diagnostic.span.line, diagnostic.span.column) == (2, 7)


@pytest.mark.parametrize("text, message, hint", [
    ("", "the spec is empty", "a spec is one kernel: `kernel name(n) { ... }`"),
    ("gemm(n) {}", "expected `kernel` at the start of the spec, found name `gemm`",
     "a spec is one kernel: `kernel name(n) { ... }`"),
    ("kernel k(n) { for i = 0..n {} }", "expected `in` after the loop's iterator, found `=`",
     "a loop is written `for i in lo..hi { ... }`"),
    ("kernel k(n) { keep A in shared y = 1 }",
     "expected `{` to open the keep scope, found name `y`",
     "a reuse scope is written `keep A, B in shared { ... }`"),
    ("kernel k(n) { y = 1 // half\n}", "`//` is not an operator", "comments start with `#`"),
    ("kernel k(n) { y -= 1 }", "`-=` is not an assignment operator",
     "assign with `=`, `+=`, `max=` or `min=`: `x = x - y` for `x -= y`"),
    ("kernel k(n) { y = 1 }\n}",
     "expected the end of the spec after the kernel's closing `}`, found `}`",
     "a spec holds one kernel; does a `}` close it too early?"),
])
def test_common_mistakes_have_their_own_message(text: str, message: str, hint: str):
    diagnostic = syntax_error(text)
    assert (diagnostic.message, diagnostic.hint) == (message, hint)


def test_a_mistake_is_recognised_at_any_nesting_depth():
    # lark's match_examples compares whole state stacks; ours compares the parser state only
    shallow = syntax_error("kernel k(n) { for i in 0..n y = 1 }")
    deep = syntax_error("kernel k(n) { for a in 0..n { for b in 0..n { for i in 0..n y = 1 } } }")
    assert shallow.message == deep.message == "expected `{` to open the loop body, found name `y`"


# a statement of each keyword that starts one, inside a loop body where a name would be an
# assignment's target
KEYWORD_STATEMENTS = {
    "keep": "keep x in shared { y[i] = x[i] }", "let": "let t = x[i]",
    "for": "for j in 0..n { y[i] = x[j] }", "in": "in z: f32[n]", "out": "out z: f32[n]",
    "inout": "inout z: f32[n]", "assume": "assume n > 2", "reuse": "reuse none",
}


def misspellings(word: str) -> list[str]:
    """Adjacent letters swapped, one dropped, one doubled: the usual typing slips."""
    swapped = [word[:k] + word[k + 1] + word[k] + word[k + 2:] for k in range(len(word) - 1)]
    dropped = [word[:k] + word[k + 1:] for k in range(len(word))]
    doubled = [word[:k] + word[k] + word[k:] for k in range(len(word))]
    return sorted({w for w in swapped + dropped + doubled if w != word})


@pytest.mark.parametrize("keyword", sorted(KEYWORD_STATEMENTS))
def test_a_misspelt_keyword_is_named_with_the_keyword_it_likely_means(keyword):
    statement = KEYWORD_STATEMENTS[keyword]
    suggested = 0
    for typo in misspellings(keyword):
        if len(typo) < 3 or typo in KEYWORD_STATEMENTS:
            continue
        text = ("kernel k(n) {\n  in x: f32[n]\n  out y: f32[n]\n  for i in 0..n {\n    "
                + statement.replace(keyword, typo, 1) + "\n  }\n}\n")
        with pytest.raises(KcostError) as caught:
            parse(text, "k.kcost")
        diagnostic = caught.value.diagnostics[0]
        assert diagnostic.span.line == 5, (typo, diagnostic.message)
        if diagnostic.hint == f"did you mean `{keyword}`?":
            assert diagnostic.message.startswith(f"`{typo}` is not a keyword")
            assert (diagnostic.span.column, diagnostic.span.end_column) == (5, 5 + len(typo))
            suggested += 1
    assert suggested > 0


def test_a_name_far_from_every_keyword_keeps_the_assignment_hint():
    with pytest.raises(KcostError) as caught:
        parse("kernel k(n) {\n  in x: f32[n]\n  for i in 0..n {\n    yy x[i]\n  }\n}\n",
              "k.kcost")
    assert caught.value.diagnostics[0].message.startswith("expected an assignment operator")


def test_no_keyword_is_an_architecture_or_a_feature():
    """The grammar's REQUIREMENT (what `target` and `needs` name) leaves out exactly the
    keywords: the words of the grammar's literals, which the checker reserves too."""
    import re

    from kernelcost.lang.check_decls import KEYWORDS
    from kernelcost.lang.parse import _parser

    words = set()
    requirement = None
    for terminal in _parser().terminals:
        if terminal.name == "REQUIREMENT":
            requirement = re.compile(terminal.pattern.value)
        elif re.fullmatch(r"[a-z]+", getattr(terminal.pattern, "value", "")):
            words.add(terminal.pattern.value)
    assert words == KEYWORDS and requirement is not None
    for word in words:
        assert not requirement.fullmatch(word)
        assert requirement.fullmatch(word + "x") and requirement.fullmatch("x" + word)
    assert requirement.fullmatch("sm_90a") and requirement.fullmatch("index")


def test_other_syntax_errors_list_what_was_expected():
    diagnostic = syntax_error("kernel k(n m) {}")
    assert diagnostic.message == "unexpected name `m`"
    assert diagnostic.hint == "expected `,`, `=` or `)`"


def test_end_of_file_names_the_unclosed_bracket():
    diagnostic = syntax_error("kernel k(n) {\n  for i in 0..n {\n    y = 1\n  }\n\n# done\n")
    assert diagnostic.message == "unexpected end of file"
    assert (diagnostic.span.line, diagnostic.span.column) == (4, 4)  # after the last `}`
    assert diagnostic.hint == "the `{` at line 1, column 13 is never closed: add a `}`"


def test_unicode_and_control_characters_are_named_plainly():
    assert syntax_error("kernel k(n) { y = é }").message == "unexpected character `é`"
    assert syntax_error("kernel k(n) { y = \x00 }").message == "unexpected character U+0000"


def test_nesting_beyond_the_limit_is_refused_before_parsing():
    text = "kernel k(n) { y = " + "(" * (MAX_NESTING + 1) + "1" + ")" * (MAX_NESTING + 1) + " }"
    assert syntax_error(text).message == f"brackets nest more than {MAX_NESTING} levels deep"


def test_thirty_nested_parentheses_are_fine():
    """A Horner-form polynomial as C kernels write it (issue 15.12)."""
    value = "x[i]"
    for _ in range(30):
        value = f"({value} * 2 + 1)"
    text = ("kernel k(n) { in x: f32[n]  out y: f32[n]\n"
            f"  for i in 0..n {{ y[i] = {value} }} }}")
    assert parse(text).name == "k"


def test_brackets_and_blocks_are_limited_apart():
    expression = "(" * (MAX_NESTING - 1) + "1" + ")" * (MAX_NESTING - 1)
    text = "kernel k(n) { out y: f32[n]  for i in 0..n { y[i] = " + expression + " } }"
    assert parse(text).name == "k"  # the blocks around it do not count against brackets
    blocks = "kernel k(n) {" + "{" * MAX_BLOCK_NESTING + "}" * MAX_BLOCK_NESTING + "}"
    assert syntax_error(blocks).message == (
        f"blocks nest more than {MAX_BLOCK_NESTING} levels deep")


def test_brackets_in_comments_do_not_count():
    text = "# " + "(" * 500 + "\nkernel k(n) { out y: f32[n]  for i in 0..n { y[i] = 1 } }"
    assert parse(text).name == "k"


def test_long_operator_chains_are_refused_not_a_recursion_error():
    text = "kernel k(n) { y = " + " + ".join(["n"] * (MAX_TREE_DEPTH * 5)) + " }"
    message = f"the spec nests more than {MAX_TREE_DEPTH} levels deep here"
    assert syntax_error(text).message == message


def test_a_moderate_chain_parses():
    parse("kernel k(n) { y = " + " + ".join(["n"] * 50) + " }")


@pytest.mark.parametrize("literal", ["1e400000000", "1e-5000", "9" * 1001, "0.1e99999"])
def test_absurd_number_literals_are_refused(literal: str):
    assert syntax_error(f"kernel k(n) {{ y = {literal} }}").message.endswith("is too large")


def test_a_400_digit_literal_is_fine():
    kernel = parse(f"kernel k(n = {10**400}) {{ y = {10**400} }}")
    assert kernel.params[0].default == 10**400


def test_a_directory_is_a_clean_error(tmp_path: Path):
    with pytest.raises(KcostError) as raised:
        parse_file(tmp_path)
    assert raised.value.diagnostics[0].message == f"{tmp_path} is a directory"


def test_a_missing_file_is_a_clean_error(tmp_path: Path):
    with pytest.raises(KcostError) as raised:
        parse_file(tmp_path / "missing.kcost")
    assert raised.value.render().startswith("error[KC801]: no such file:")


def test_a_file_that_is_not_utf8_is_a_clean_error(tmp_path: Path):
    path = tmp_path / "latin1.kcost"
    path.write_bytes(b"kernel k(n) { y = \xe9 }")
    with pytest.raises(KcostError) as raised:
        parse_file(path)
    diagnostic = raised.value.diagnostics[0]
    assert "is not UTF-8 text: byte 0xE9" in diagnostic.message
    assert (diagnostic.span.line, diagnostic.span.column) == (1, 19)


def test_the_generated_parser_is_what_the_grammar_gives():
    """src/kernelcost/lang/_generated/kcost_parser.py holds the tables of grammar/kcost.lark:
    the script that writes it, run again in a fresh process (whatever its hash seed), writes
    the same bytes."""
    script = Path(__file__).resolve().parent.parent / "tools" / "regen_parser.py"
    completed = subprocess.run([sys.executable, str(script), "--check"], capture_output=True,
                               text=True, check=False)
    assert completed.returncode == 0, completed.stderr


def _named(kernel: str = "k", size: str = "n", tensor: str = "x", local: str = "t",
           iterator: str = "i") -> str:
    return (f"kernel {kernel}({size}) {{\n in {tensor}: f32[{size}]\n out y: f32[{size}]\n"
            f" let {local} = 2\n for {iterator} in 0..{size} {{ y[{iterator}] = "
            f"{local} * {tensor}[{iterator}] }}\n}}")


ROLES = ("kernel", "size", "tensor", "local", "iterator")


@pytest.mark.parametrize("role", ROLES)
def test_a_name_of_the_limit_is_read_in_every_role(role: str):
    name = "a" * MAX_NAME_LENGTH
    kernel = parse(_named(**{role: name}))
    tensor, _, local, loop = kernel.items
    assert (kernel.name, kernel.params[0].name, tensor.name, local.name, loop.var)[
        ROLES.index(role)] == name


@pytest.mark.parametrize("role", ROLES)
def test_a_longer_name_is_refused_at_it_in_every_role(role: str):
    name = "b" * (MAX_NAME_LENGTH + 1)
    text = _named(**{role: name})
    with pytest.raises(KcostError) as caught:
        parse(text, "long.kcost")
    [diagnostic] = caught.value.diagnostics
    assert caught.value.code is Code.NAME_TOO_LONG
    span = diagnostic.span
    first = text.index(name)  # the first place it is written: the declaration
    line = text[:first].count("\n") + 1
    assert (span.line, span.column) == (line, first - text.rfind("\n", 0, first))
    assert span.end_column - span.column == MAX_NAME_LENGTH + 1
    assert diagnostic.message == (f"the name `bbbbbbbb...bbbbbbbb` is "
                                  f"{MAX_NAME_LENGTH + 1} characters long")
    assert name not in caught.value.render()


def test_a_long_name_in_a_set_value_is_refused_too():
    from kernelcost.lang.settings import size_expression

    with pytest.raises(KcostError) as caught:
        size_expression("2 * " + "c" * 1000, {}, "--set n")
    assert caught.value.code is Code.NAME_TOO_LONG
