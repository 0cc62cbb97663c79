"""Lazy public names of a package: ``{name: submodule}`` and one ``__getattr__`` body.

A package's ``__init__`` lists where each public name lives (``_LAZY``) and sets
``__getattr__ = getter(__name__, globals(), _LAZY)``, which imports a name on first use, so
importing the package (to read its declarations, for ``--help``) loads no engine, numpy or
pandas. A name that is not listed is an ``AttributeError`` as usual, unless it was renamed
(:data:`primafacie._renamed.RENAMED_NAMES`): then it resolves to the new name with a
``DeprecationWarning`` for one release.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["load", "getter"]


def load(package: str, namespace: dict[str, Any], where: Mapping[str, str], name: str) -> Any:
    """Import ``name`` from the sub-module of ``package`` that ``where`` names, cache it in
    the package's ``namespace`` (later uses are plain look-ups) and return it."""
    if name not in where:
        from ._renamed import renamed

        new = renamed(package, name, stacklevel=4)  # the caller of the package's __getattr__
        if new is not None:  # the old name is not cached, so every use of it warns
            return namespace[new] if new in namespace else load(package, namespace, where, new)
        raise AttributeError(f"module {package!r} has no attribute {name!r}")
    # ``from package.sub import name``, without importlib (a plain import statement's hook)
    module = __import__(f"{package}.{where[name]}", fromlist=[name])
    value = getattr(module, name)
    namespace[name] = value
    return value


def getter(package: str, namespace: dict[str, Any], where: Mapping[str, str]) -> Any:
    """The module ``__getattr__`` of ``package``: :func:`load` of the name asked for.

    Examples
    --------
    >>> space = {}
    >>> get = getter("primafacie", space, {"slug": "filenames"})
    >>> get("slug") is space["slug"], get("slug").__module__
    (True, 'primafacie.filenames')
    """

    def __getattr__(name: str) -> Any:
        return load(package, namespace, where, name)

    return __getattr__
