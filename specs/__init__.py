"""The shipped specs, as package data: `kernelcost model` composes some of them."""
