"""Lazy public names of a package: ``{name: submodule}`` and one ``__getattr__`` body.

A package's ``__init__`` lists where each public name lives and imports it on first use, so
importing the package (to read its declarations, for ``--help``) loads no engine, numpy or
pandas. A name that is not listed is an ``AttributeError`` as usual.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["load"]


def load(package: str, namespace: dict[str, Any], where: Mapping[str, str], name: str) -> Any:
    """Import ``name`` from the sub-module of ``package`` that ``where`` names, cache it in
    the package's ``namespace`` (later uses are plain look-ups) and return it."""
    if name not in where:
        raise AttributeError(f"module {package!r} has no attribute {name!r}")
    # ``from package.sub import name``, without importlib (a plain import statement's hook)
    module = __import__(f"{package}.{where[name]}", fromlist=[name])
    value = getattr(module, name)
    namespace[name] = value
    return value
