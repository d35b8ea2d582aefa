"""Effects on t_model as plug-ins: each module holds one effect (what it reads from the spec
and the machine, the derate it adds to the model and the figures its sentence needs), the
registry lists them in order, and the execution model asks the registry for the effects on
the roofs (gpu.execution), the verdict for those on the call around t_model (answers.model).
Effects are estimates: they enter t_model, never t_bound."""
