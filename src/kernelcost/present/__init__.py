"""Presentation: every printer (report/), the sweeps and their numpy functions, a
kernel's path over a sweep, text and matplotlib figures with label placement, phase and ski
diagrams, notebook display registered on the result types from outside them.

Floor 7 of kernelcost.layers; may import: base, algebra, lang, frontend, count, hardware, oracle,
analysis, gpu, answers.
"""
