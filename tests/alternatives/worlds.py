"""Small generated worlds for the alternatives search, each with a known answer."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler

from primafacie.data import AuditData

FEATURES = {"x": "numeric", "proxy": "numeric", "noise": "numeric"}


def world(kind: str, n: int = 6000, seed: int = 0) -> tuple[AuditData, Pipeline]:
    """``proxy``: a feature that mostly encodes the protected attribute and barely predicts the
    outcome drives the disparity; ``legitimate``: the disparity comes from a strongly predictive
    feature that differs between the groups; ``fair``: nothing differs between the groups.

    Returns the audited data (the model's decisions recorded) and the fitted model.
    """
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 2, n)
    noise = rng.normal(size=n)
    if kind == "proxy":
        x = rng.normal(size=n)
        proxy = 2.0 * a + rng.normal(scale=0.5, size=n)
        # the proxy carries a little real signal (0.15 per unit) besides the group
        logit = 2.0 * x + 0.05 * proxy
        y = (logit + rng.logistic(size=n) > 0).astype(int)
        # historical labels penalised the protected group: what the proxy learns
        y = np.where((a == 1) & (rng.random(n) < 0.2), 0, y)
    elif kind == "legitimate":
        x = rng.normal(size=n) - 1.0 * a
        proxy = rng.normal(size=n)
        y = (3.0 * x + rng.logistic(size=n) > 0).astype(int)
    else:
        x = rng.normal(size=n)
        proxy = rng.normal(size=n)
        y = (2.0 * x + rng.logistic(size=n) > 0).astype(int)
    frame = pd.DataFrame(
        {"x": x, "proxy": proxy, "noise": noise, "group": np.where(a, "p", "r"), "y": y}
    )
    model = Pipeline([("scale", StandardScaler()), ("clf", LogisticRegression())])
    model.fit(frame[list(FEATURES)], y)
    frame["decision"] = model.predict(frame[list(FEATURES)])
    data = AuditData(
        frame, features=FEATURES, protected={"group": "p"}, decision="decision", outcome="y"
    )
    return data, model


def write_inputs(folder, n: int = 1500, train_n: int = 1500, **section) -> Path:
    """A proxy world on disk: ``data.csv`` (audited rows), ``train.csv`` (other rows of the same
    world, with the true outcome), ``model.skops`` (the audited model, fitted on the training
    rows) and ``audit.yaml`` (``section`` as ``analyses.alternatives`` when given, else none:
    the search then runs by default). Returns the path of ``audit.yaml``."""
    import yaml

    from primafacie.modelfiles import skops_bytes

    folder = Path(folder)
    train, model = world("proxy", n=train_n, seed=1)
    audited, _ = world("proxy", n=n, seed=2)
    frame = audited.frame.drop(columns=["decision"])
    frame.to_csv(folder / "data.csv", index=False)
    train.frame.drop(columns=["decision"]).to_csv(folder / "train.csv", index=False)
    (folder / "model.skops").write_bytes(skops_bytes(model))
    cfg = {
        "data": "data.csv",
        "decision": {"model": "model.skops"},
        "outcome": "y",
        "features": FEATURES,
        "protected": {"group": "p"},
    }
    if section:
        cfg["analyses"] = {"alternatives": section}
    path = folder / "audit.yaml"
    path.write_text(yaml.safe_dump(cfg, sort_keys=False), encoding="utf-8")
    return path
