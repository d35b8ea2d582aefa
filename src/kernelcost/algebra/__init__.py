"""Exact arithmetic beside sympy: rational functions cancelled and factored, signs and
orders proven by witnesses and shifted coefficients, roundings, the Min/Max thresholds a size
crosses, ridge equations and their roots, the LP of the I/O bounds, numeric sums; sympy's text
and JSON of a form; the replacements of sympy's functions kept for speed (each module names
the function it replaces and why) and the scope that installs them only while kernelcost
computes (sympy_scope).

Floor 2 of kernelcost.layers; may import: base.
"""
