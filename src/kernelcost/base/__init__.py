"""The foundations: errors as data (a class, a family and a stable code each) and their
report; the syntax tree's nodes and spans; size and iterator symbols and the one tree-to-sympy
translation; SI and binary units; safe reading and whole-file writing; TOML places; the one
time budget, its clock started with the process; compiled records.

Floor 1 of kernelcost.layers; may import: nothing of kernelcost.
"""
