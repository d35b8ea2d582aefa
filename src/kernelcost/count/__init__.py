"""W(n) and Q(n) in closed form, the counting and reuse contract of DESIGN.md: the Cost
value, what the assumptions prove, the loop nest, sums, distinct elements (footprints, boxes),
the thread blocks of a parallel spec, `lanes` loops as warp instructions, the contractions'
tiles, leading terms and limits, and numbers at given sizes (values).

Floor 3 of kernelcost.layers; may import: base, algebra, lang, frontend.
"""
