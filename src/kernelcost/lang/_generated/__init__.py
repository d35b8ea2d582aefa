"""Generated code, never edited: `kcost_parser.py` is lark's stand-alone parser for
grammar/kcost.lark, written by tools/regen_parser.py. Lark's stand-alone generator places its
output under the Mozilla Public License 2.0 (the header of kcost_parser.py), apart from the rest
of kernelcost; the package metadata says so (pyproject.toml, license-files)."""
