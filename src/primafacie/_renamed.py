"""Names renamed in 0.2 ("one vocabulary"), kept working for one release with a warning.

"Audit" now means only the orchestration (the ``audit`` command, :mod:`primafacie.audit`,
``AuditConfig``, ``AuditData``); the engines are named for what they compute, and the main
module of every engine package is ``engine.py``. Two mechanisms keep old code running:

* an old class name resolves through its package's lazy ``__getattr__``
  (:func:`primafacie._lazy.load` consults :data:`RENAMED_NAMES`);
* an old module (``recourse/audit.py``, ``certainty/audit.py``, ``principal/fairness.py``) is a
  thin shim whose import warns and which re-exports the engine module (:func:`moved_module`).

Both emit a :class:`DeprecationWarning` naming the new name; so does an engine argument given
under its former name (:func:`renamed_argument`: ``SituationTest(method=...)`` is now
``methods=...``, the ``analyses.situation`` key). This module is hand-written and
``tools/rename_vocabulary.py`` never edits it (it must keep spelling the old names).

>>> import warnings
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     new = renamed("primafacie.recourse", "RecourseAudit")
>>> new, str(caught[0].message)  # doctest: +NORMALIZE_WHITESPACE
('RecourseFairness', 'primafacie.recourse.RecourseAudit is deprecated: it is now
primafacie.recourse.RecourseFairness (renamed in 0.2; the old name goes in 0.3)')
"""

# rename_vocabulary: skip-file

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

__all__ = ["RENAMED_NAMES", "MOVED_MODULES", "renamed", "moved_module", "renamed_argument"]

#: ``{package: {old public name: new name}}``; the packages whose ``__getattr__`` resolves them.
RENAMED_NAMES: dict[str, dict[str, str]] = {
    "primafacie": {"RecourseAudit": "RecourseFairness", "CertaintyAudit": "CertaintyRanking"},
    "primafacie.recourse": {"RecourseAudit": "RecourseFairness"},
    "primafacie.certainty": {"CertaintyAudit": "CertaintyRanking"},
    "primafacie.ll144": {"LL144Audit": "LL144Tables"},
}

#: ``{old module: new module}``: each old module is a shim that re-exports the new one.
MOVED_MODULES: dict[str, str] = {
    "primafacie.recourse.audit": "primafacie.recourse.engine",
    "primafacie.certainty.audit": "primafacie.certainty.engine",
    "primafacie.principal.fairness": "primafacie.principal.engine",
}

_GOES = "(renamed in 0.2; the old name goes in 0.3)"


def renamed(package: str, name: str, stacklevel: int = 3) -> str | None:
    """The new name of ``package.name`` if it was renamed (warning that it was), else None.

    Parameters
    ----------
    package
        The package the name was read from (``"primafacie.recourse"``).
    name
        The attribute asked for.
    stacklevel
        Of the warning: the default points at the code that read the old name through a
        package ``__getattr__``.
    """
    new = RENAMED_NAMES.get(package, {}).get(name)
    if new is not None:
        warnings.warn(
            f"{package}.{name} is deprecated: it is now {package}.{new} {_GOES}",
            DeprecationWarning,
            stacklevel=stacklevel,
        )
    return new


def moved_module(old: str) -> tuple[Callable[[str], Any], list[str]]:
    """Warn that module ``old`` moved and return the shim's ``__getattr__`` and ``__all__``.

    The ``__getattr__`` forwards every name to the new module (old class names too, with a
    warning naming the new one), so ``from primafacie.recourse.audit import RecourseAudit``
    and ``import *`` keep working for one release.
    """
    new = MOVED_MODULES[old]
    warnings.warn(
        f"module {old} is deprecated: import from {new} {_GOES}", DeprecationWarning, stacklevel=3
    )
    # a plain import statement's hook, as in primafacie._lazy (no importlib anywhere)
    module = __import__(new, fromlist=["__name__"])
    package = old.rpartition(".")[0]

    def __getattr__(name: str) -> Any:
        target = renamed(package, name) or name
        try:
            return getattr(module, target)
        except AttributeError:
            raise AttributeError(f"module {old!r} has no attribute {name!r}") from None

    return __getattr__, list(getattr(module, "__all__", ()))


def renamed_argument(owner: str, old: str, new: str, stacklevel: int = 3) -> None:
    """Warn that the argument ``owner(old=...)`` is now ``new=...`` (kept one release).

    Called by the constructor that still takes ``old``, so that the warning points at the
    line that built the engine (``stacklevel``: the caller of that constructor); the engine
    then refuses ``old`` and ``new`` given together (:func:`both_given`).

    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     renamed_argument("SituationTest", "method", "methods")
    >>> str(caught[0].message)  # doctest: +NORMALIZE_WHITESPACE
    'SituationTest(method=...) is deprecated and will be removed in the next release; use
    methods=... (renamed in 0.2; the old name goes in 0.3)'
    """
    warnings.warn(
        f"{owner}({old}=...) is deprecated and will be removed in the next release; use "
        f"{new}=... {_GOES}",
        DeprecationWarning,
        stacklevel=stacklevel,
    )


def both_given(owner: str, old: str, new: str, old_value: Any, new_value: Any) -> str:
    """The message refusing an argument given under its new and its former name at once.

    >>> both_given("SituationTest", "method", "methods", "st", ["cst"])
    "SituationTest: give methods only (got methods=['cst'] and the deprecated method='st')"
    """
    return (
        f"{owner}: give {new} only (got {new}={new_value!r} and the deprecated {old}={old_value!r})"
    )
