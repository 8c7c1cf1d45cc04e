"""Signatures for the compiled core's functions and methods.

pybind11 writes each function's signature as the first line of its docstring but
gives the function no ``__signature__``, so ``inspect.signature`` raises ValueError
and help() shows C++ type names. ``public_function`` and ``public_methods`` wrap
them in Python functions whose signature is that first line, parsed: the parameter
names, defaults, positional and keyword-only markers of the C++ definition
(its ``py::arg``s), which stays the one place they are written.
"""
import ast
import inspect

_P = inspect.Parameter


def _parse(doc, name):
    """(Signature, rest of the docstring) from pybind11's "name(a: T, *, b: U = 1) -> R" line."""
    first, _, rest = (doc or "").partition("\n")
    if not first.startswith(name + "("):
        raise ValueError(f"{name}: the docstring does not start with its signature: {first!r}")
    text = first[len(name):]
    if ") -> " in text:
        text = text[: text.rindex(") -> ") + 1]
    args = ast.parse(f"def _{text}: pass").body[0].args
    params = []
    positional = args.posonlyargs + args.args
    first_default = len(positional) - len(args.defaults)
    for i, a in enumerate(positional):
        kind = _P.POSITIONAL_ONLY if i < len(args.posonlyargs) else _P.POSITIONAL_OR_KEYWORD
        default = ast.literal_eval(args.defaults[i - first_default]) if i >= first_default else _P.empty
        params.append(_P(a.arg, kind, default=default))
    if args.vararg:
        params.append(_P(args.vararg.arg, _P.VAR_POSITIONAL))
    for a, d in zip(args.kwonlyargs, args.kw_defaults):
        params.append(_P(a.arg, _P.KEYWORD_ONLY, default=_P.empty if d is None else ast.literal_eval(d)))
    if args.kwarg:
        params.append(_P(args.kwarg.arg, _P.VAR_KEYWORD))
    return inspect.Signature(params), rest.lstrip("\n")


def public_function(core, signature=None):
    """`core` (a function of mgedump._core) as a function of the package mgedump."""
    parsed, doc = _parse(core.__doc__, core.__name__)

    def function(*args, **kwargs):
        return core(*args, **kwargs)

    function.__name__ = function.__qualname__ = core.__name__
    function.__module__ = "mgedump"
    function.__doc__ = doc
    function.__signature__ = signature or parsed
    return function


def _calling(core):
    def method(self, *args, **kwargs):
        return core(self, *args, **kwargs)

    return method


def public_methods(cls, **signatures):
    """Gives every public and special method of `cls` its signature; `signatures`
    name those the docstring cannot state (``op``'s ``*inputs, **params``)."""
    for name, member in list(vars(cls).items()):
        private = name.startswith("_") and not (name.startswith("__") and name.endswith("__"))
        if private or type(member).__name__ != "instancemethod":
            continue
        core = member.__func__
        parsed, doc = _parse(core.__doc__, name)
        method = _calling(core)
        method.__name__ = name
        method.__qualname__ = f"{cls.__name__}.{name}"
        method.__module__ = "mgedump"
        method.__doc__ = doc
        method.__signature__ = signatures.get(name, parsed)
        setattr(cls, name, method)
    cls.__module__ = "mgedump"
