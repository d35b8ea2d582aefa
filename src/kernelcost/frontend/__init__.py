"""Kernels written in another language, read as text and written out as `.kcost` specs:
`triton_source` finds a `@triton.jit` function and its launch in a Python file (read with the
standard `ast` module; Triton is never imported, the file never run), `triton_values` holds
the values the kernel's statements compute (sizes, lane blocks, pointers, masks, data) and
prints them as spec expressions, `triton_body` walks the function's statements into spec
statements, and `triton_spec` writes the spec. The spec is text: the kcost parser and checker
read it as they read a file, so no Python value reaches the counting.

Floor 2 of kernelcost.layers; may import: base.
"""
