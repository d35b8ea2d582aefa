"""What the tool answers, as data: verdicts and the three times, crossings (solve),
items per second, measured efficiency, I/O lower bounds, tuning, whole models, validation
against measurements.

Floor 6 of kernelcost.layers; may import: base, algebra, lang, frontend, count, hardware, oracle,
analysis, gpu.
"""
