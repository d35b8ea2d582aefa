"""Where notebook display reaches a result type that draws itself, without the type importing
a printer or the display importing the type's module: `display.register` sets `_repr_svg_` on
Drawable, and model.Verdict inherits it. So `import kernelcost` loads nothing of the model."""


class Drawable:
    """A result a notebook draws as a figure (`_repr_svg_`, attached by display.register)."""

    __slots__ = ()
