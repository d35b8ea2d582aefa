"""Machines and models as data: the machine model and its TOML format (every figure
with its source, each field read by type and placed), the figures at the maximum clock that
bounds use, transformer model files.

Floor 4 of kernelcost.layers; may import: base, algebra, lang, frontend, count.
"""
