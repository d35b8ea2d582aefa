"""The version of kernelcost, as pyproject.toml gives it (a test holds the two equal)."""

VERSION = "0.1.0"
