"""The GPU execution model: occupancy, blocks by classes and waves, the under-filled
grid, capacity fits, what lowers a roof (launch, latency, sectors, bank conflicts, a warm L2),
t_floor and the order t_floor <= t_bound <= t_model.

Floor 5 of kernelcost.layers; may import: base, algebra, lang, frontend, count, hardware, oracle.
"""
