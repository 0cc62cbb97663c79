"""primafacie: audit automated and human decisions for discrimination.

Public API (everything else is internal):

- :class:`AuditData` - a table with roles (features, protected attributes, decision, outcome)
- :class:`Rule` - a safe decision-rule expression; :func:`load_model` loads a fitted estimator
"""

from __future__ import annotations

from .data import AuditData
from .decisions import Rule, load_model
from .errors import AnalysisError, InputError

__version__ = "0.1.0"

__all__ = ["AuditData", "Rule", "load_model", "InputError", "AnalysisError", "__version__"]
