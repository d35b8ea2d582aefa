"""Topology files: how the GPUs of one system reach each other (the interconnect is a property
of the system, not of the GPU). Read by kernelcost.hardware.topology."""
