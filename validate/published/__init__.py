"""The corpus of published measurements, shipped as package data (kernelcost.corpus): one CSV
a source family, read by kernelcost.answers.published."""
