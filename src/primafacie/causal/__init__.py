"""Structural causal models with additive noise: graph, mechanisms, and counterfactuals.

* :mod:`.graph` — pure functions on edge lists: order, cycles, relatives, node merging.
* :mod:`.mechanisms` — :class:`LinearANM`, :class:`EstimatorANM`, :class:`CategoricalCDF`,
  each with ``fit``, ``noise`` (abduction) and ``evaluate`` (prediction).
* :mod:`.scm` — :class:`SCM`: settings validated at ``fit``, and the abduction → action →
  prediction loop over the nodes in topological order.
* :mod:`.fitting` — the nodes' fits as independent tasks, each on one BLAS thread (the same
  bits on any machine), run serially, on a backend's threads or on its Dask workers.

Everything importable from the former single module ``primafacie.causal`` still is.
"""

from __future__ import annotations

from .graph import DAG
from .mechanisms import (
    MECHANISMS,
    AdditiveNoiseModel,
    CategoricalCDF,
    EstimatorANM,
    LinearANM,
    Mechanism,
    make_mechanism,
)
from .scm import INTERCEPT, SCM

__all__ = [
    "DAG",
    "INTERCEPT",
    "MECHANISMS",
    "SCM",
    "AdditiveNoiseModel",
    "CategoricalCDF",
    "EstimatorANM",
    "LinearANM",
    "Mechanism",
    "make_mechanism",
]
