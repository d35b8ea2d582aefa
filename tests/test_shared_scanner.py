"""The generated parser's shared scanner (tools/regen_parser.py) gives each lexer state the
tokens lark's own scanner of the state gives: every shipped spec and every error case parse
to the same tree or fail with the same error, and so do random edits of them."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st
from tiers import tiered

from kernelcost.lang._generated import kcost_parser

ROOT = Path(__file__).resolve().parent.parent
TEXTS = [path.read_text("utf-8") for path in sorted((ROOT / "specs").glob("*.kcost"))
         + sorted((ROOT / "tests" / "errors").glob("*.kcost"))]


def _own_scanner(terminals, terminals_by_name, g_regex_flags, re_, use_bytes):
    return kcost_parser.Scanner(terminals, g_regex_flags, re_, use_bytes)


def _shape(node):
    """A tree as data: rules with their children, tokens with their type, text and place."""
    if isinstance(node, kcost_parser.Token):
        return (node.type, str(node), node.line, node.column, node.end_line, node.end_column)
    if isinstance(node, kcost_parser.Tree):
        return (node.data, [_shape(child) for child in node.children])
    return node


def _outcome(parser, text: str):
    try:
        return _shape(parser.parse(text))
    except kcost_parser.LarkError as error:
        return (type(error).__name__, str(error))


# two parsers for the whole session: each state's scanner is built on its first token, the
# second parser's always with lark's own Scanner in place
SHARED, OWN = kcost_parser.Lark_StandAlone(), kcost_parser.Lark_StandAlone()


def _own_outcome(text: str):
    scanner = kcost_parser.SharedScanner
    kcost_parser.SharedScanner = _own_scanner
    try:
        return _outcome(OWN, text)
    finally:
        kcost_parser.SharedScanner = scanner


def test_every_spec_and_error_case_parses_as_with_lark_s_own_scanner():
    for text in TEXTS:
        assert _outcome(SHARED, text) == _own_outcome(text)


_edits = st.tuples(st.integers(0, len(TEXTS) - 1), st.floats(0, 1),
                   st.sampled_from(["", " ", "in", "for", "x", "1", "(", ")", "{", "}", ",",
                                    "..", "by", "keep", "+", "*", "|", "=", "\n", "#", "@"]),
                   st.integers(0, 3))


@tiered(400)
@given(st.lists(_edits, min_size=1, max_size=3))
def test_random_edits_parse_or_fail_as_with_lark_s_own_scanner(edits):
    """A word inserted or a few characters deleted at random places: the same tree, or the
    same error with the same place and expected tokens."""
    for index, place, word, deleted in edits:
        text = TEXTS[index]
        cut = int(place * len(text))
        text = text[:cut] + word + text[cut + deleted:]
        assert _outcome(SHARED, text) == _own_outcome(text)
