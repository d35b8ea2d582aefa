"""The generated parser's places of each rule's tree (tools/regen_parser.py reads a plain
token's own place without lark's getattr defaults) are those lark's own parser gives: every
shipped spec and error case, each tree's line, column, positions and container places."""

from __future__ import annotations

from pathlib import Path

from lark import Lark
from lark import Token as LarkToken

from kernelcost.lang._generated import kcost_parser
from kernelcost.lang.parse import grammar_text

ROOT = Path(__file__).resolve().parent.parent
TEXTS = [path.read_text("utf-8") for path in sorted((ROOT / "specs").glob("*.kcost"))
         + sorted((ROOT / "tests" / "errors").glob("*.kcost"))]
PLACES = ("line", "column", "start_pos", "end_line", "end_column", "end_pos",
          "container_line", "container_column", "container_start_pos", "container_end_line",
          "container_end_column", "container_end_pos", "empty")


def _shape(node):
    """A tree as data: each rule with every place its meta holds, each token with its own."""
    if isinstance(node, (kcost_parser.Token, LarkToken)):
        return (node.type, str(node), node.start_pos, node.end_pos)
    if hasattr(node, "data"):
        meta = node.meta
        return (str(node.data), tuple(getattr(meta, place, None) for place in PLACES),
                [_shape(child) for child in node.children])
    return node


def _outcome(parser, text: str):
    try:
        return _shape(parser.parse(text))
    except Exception as error:  # noqa: BLE001 - both parsers fail alike, by kind
        return type(error).__name__


def test_every_tree_s_places_are_lark_s_own():
    ours = kcost_parser.Lark_StandAlone()
    lark_s = Lark(grammar_text(), parser="lalr", propagate_positions=True,
                  maybe_placeholders=True)
    parsed = 0
    for text in TEXTS:
        expected = _outcome(lark_s, text)
        assert _outcome(ours, text) == expected
        parsed += not isinstance(expected, str)
    assert parsed >= 50  # the shipped specs parse: their trees were compared
