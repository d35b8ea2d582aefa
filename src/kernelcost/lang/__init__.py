"""The .kcost language up to the checked tree: the generated parser (`_generated`, lark's
stand-alone output, MPL-2.0) and readable syntax errors; the checker's passes (declarations,
expressions, lanes, the grid of a parallel header); the FLOP rules; matrix contractions and
their units; the element types at another precision; `--set` values and size ranges.

Floor 2 of kernelcost.layers; may import: base.
"""
