"""The public `load` and `analyze`: a spec parsed, checked, counted and verified
against the oracle at sampled sizes.

Floor 5 of kernelcost.layers; may import: base, algebra, lang, frontend, count, hardware, oracle.
"""
