"""Release gates on a saved audit: thresholds on JSON paths of ``results.json``, JUnit XML.

A gate file (YAML, read with ``yaml.safe_load``, never evaluated)::

    strict: false                       # optional default for every gate
    gates:                              # optional wrapper; without it every other key is a gate
      groups.min_selection_ratio: {min: 0.8}
      situation.significant_share: {max: 0.05, method: cst, k: 30}
      alternatives.lda_found: {equals: false}
      groups.selection_ratio: {baseline: no_significant_fall, attribute: gender}

A path ``<analysis>.<key>...`` is looked up in ``analyses.<analysis>.numbers`` and then in
``analyses.<analysis>`` (e.g. ``situation.status``); any other first segment starts at the root
(``data.n``). A list of records on the way is filtered by the gate's other keys (``method: cst,
k: 30``); every record left is checked and the gate holds when all hold. A value that is a
mapping with ``value`` (e.g. ``min_selection_ratio``) is checked through ``value`` and its
interval ``value_low``/``value_high``; a plain value ``x`` finds its interval in ``x_low``/
``x_high`` beside it. ``strict: true`` requires the interval to clear the threshold (the lower
bound for ``min``, the upper bound for ``max``).

``baseline`` gates compare with an earlier audit (``--baseline``) through
:func:`~primafacie.overtime.diff.diff_audits`: ``no_significant_fall`` fails when a matching
number fell significantly (Holm-adjusted), ``no_significant_rise`` when it rose,
``no_significant_change`` on either.
"""

from __future__ import annotations

import os
import time
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from dataclasses import dataclass, field
from numbers import Real
from pathlib import Path
from typing import Any

import yaml

from ..errors import InputError
from .reader import AuditRecord

__all__ = ["Gate", "GateOutcome", "load_gates", "evaluate_gates", "junit_xml", "BASELINE_RULES"]

BASELINE_RULES = ("no_significant_fall", "no_significant_rise", "no_significant_change")
_TESTS = ("min", "max", "equals", "baseline")
_OPTIONS = ("strict",)
#: Fields that name a record in a list (shown in the label of each value checked).
_IDENT = ("test", "attribute", "group", "method", "k", "definition", "cell", "decision_maker")


@dataclass(frozen=True)
class Gate:
    """One gate: a JSON path, its thresholds and the record filters."""

    name: str
    path: tuple[str, ...]
    min: float | None = None
    max: float | None = None
    equals: Any = None
    has_equals: bool = False
    baseline: str | None = None
    strict: bool = False
    where: Mapping[str, Any] = field(default_factory=dict)

    def describe(self) -> str:
        """``min 0.8, strict`` style text of the thresholds."""
        parts = [f"min {self.min:g}" if self.min is not None else "",
                 f"max {self.max:g}" if self.max is not None else "",
                 f"equals {self.equals!r}" if self.has_equals else "",
                 f"baseline {self.baseline}" if self.baseline else "",
                 "strict" if self.strict else ""]  # fmt: skip
        where = ", ".join(f"{k}={v}" for k, v in self.where.items())
        return ", ".join(p for p in parts if p) + (f" where {where}" if where else "")


@dataclass(frozen=True)
class GateOutcome:
    """The verdict of one gate: ``holds`` and one line per record checked."""

    gate: Gate
    holds: bool
    details: tuple[str, ...]


def _number(name: str, key: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, Real):
        raise InputError(f"gate {name!r}: {key} must be a number, got {value!r}")
    return float(value)


def _parse_gate(name: Any, spec: Any, strict_default: bool) -> Gate:
    if not isinstance(name, str) or not name or any(not s for s in name.split(".")):
        raise InputError(f"gate {name!r}: a gate is named by a dotted JSON path such as "
                         "'groups.min_selection_ratio'")  # fmt: skip
    if not isinstance(spec, Mapping):
        raise InputError(f"gate {name!r}: expected a mapping such as {{min: 0.8}}, got {spec!r}")
    if not any(k in spec for k in _TESTS):
        raise InputError(f"gate {name!r}: give at least one of {', '.join(_TESTS)}; got "
                         f"{sorted(map(str, spec))}")  # fmt: skip
    strict = spec.get("strict", strict_default)
    if not isinstance(strict, bool):
        raise InputError(f"gate {name!r}: strict must be true or false, got {strict!r}")
    baseline = spec.get("baseline")
    if baseline is not None and baseline not in BASELINE_RULES:
        raise InputError(f"gate {name!r}: baseline must be one of {', '.join(BASELINE_RULES)}, "
                         f"got {baseline!r}")  # fmt: skip
    where = {str(k): v for k, v in spec.items() if k not in _TESTS + _OPTIONS}
    for k, v in where.items():
        if not isinstance(v, (str, int, float, bool)) or v is None:
            raise InputError(f"gate {name!r}: filter {k} must be a single value, got {v!r}")
    gate = Gate(
        name=name,
        path=tuple(name.split(".")),
        min=_number(name, "min", spec["min"]) if "min" in spec else None,
        max=_number(name, "max", spec["max"]) if "max" in spec else None,
        equals=spec.get("equals"),
        has_equals="equals" in spec,
        baseline=baseline,
        strict=strict,
        where=where,
    )
    if gate.min is not None and gate.max is not None and gate.min > gate.max:
        raise InputError(f"gate {name!r}: min {gate.min:g} is above max {gate.max:g}")
    return gate


def load_gates(path: str | Path) -> list[Gate]:
    """Read and validate a gate file (see the module docstring); InputError names the gate.

    Examples
    --------
    >>> load_gates("gates.yaml")[0].describe()  # doctest: +SKIP
    'min 0.8'
    """
    p = Path(path)
    try:
        doc = yaml.safe_load(p.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise InputError(f"{p}: not valid YAML ({exc})") from None
    except UnicodeDecodeError as exc:
        raise InputError(f"{p}: not UTF-8 text ({exc})") from None
    if not isinstance(doc, Mapping) or not doc:
        raise InputError(f"{p}: expected a mapping of gates such as "
                         "'groups.min_selection_ratio: {min: 0.8}'")  # fmt: skip
    strict = doc.get("strict", False)
    if not isinstance(strict, bool):
        raise InputError(f"{p}: strict must be true or false, got {strict!r}")
    gates = doc["gates"] if "gates" in doc else {k: v for k, v in doc.items() if k != "strict"}
    if not isinstance(gates, Mapping) or not gates:
        raise InputError(f"{p}: 'gates' must be a non-empty mapping of gate path to thresholds")
    return [_parse_gate(name, spec, strict) for name, spec in gates.items()]


def _matches(record: Mapping[str, Any], where: Mapping[str, Any]) -> bool:
    # "30" in a gate file and 30 in results.json are the same k
    return all(str(record.get(k)) == str(v) for k, v in where.items() if k in record)


def _walk(
    obj: Any, segs: tuple[str, ...], where: Mapping[str, Any], label: str, seen: set[str]
) -> list:
    """``[(label, value, low, high)]`` for every leaf the path reaches (lists filtered);
    ``seen`` collects the fields of the records met, to catch a misspelt filter."""
    if isinstance(obj, list):
        out = []
        for i, item in enumerate(obj):
            if isinstance(item, Mapping):
                seen.update(map(str, item))
            if isinstance(item, Mapping) and _matches(item, where):
                keys = [*where, *(k for k in _IDENT if k not in where)]
                tag = ", ".join(f"{k}={item[k]}" for k in keys if k in item) or f"#{i}"
                out += _walk(item, segs, where, f"{label}{tag}", seen)
        return out
    if not segs:
        if isinstance(obj, Mapping) and "value" in obj:
            return [(label, obj["value"], obj.get("value_low"), obj.get("value_high"))]
        return [(label, obj, None, None)]
    if not isinstance(obj, Mapping):
        return []
    if segs[0] not in obj:
        # "situation.significant_share" reaches into the records of a list such as by_test
        lists = [v for v in obj.values() if isinstance(v, list) and v and
                 all(isinstance(r, Mapping) for r in v) and any(segs[0] in r for r in v)]  # fmt: skip
        return [hit for v in lists for hit in _walk(v, segs, where, label, seen)]
    head, rest = segs[0], segs[1:]
    value = obj[head]
    records = isinstance(value, list) and any(isinstance(x, Mapping) for x in value)
    if not rest and not records and not isinstance(value, Mapping):  # a leaf (a list of names too)
        return [(label, value, obj.get(f"{head}_low"), obj.get(f"{head}_high"))]
    return _walk(obj[head], rest, where, label, seen)


def resolve(rec: AuditRecord, gate: Gate) -> list[tuple[str, Any, Any, Any]] | str:
    """The values a gate checks, or a reason string when the analysis did not run."""
    analyses = rec.doc.get("analyses", {})
    head, rest = gate.path[0], gate.path[1:]
    seen: set[str] = set()
    if head in analyses:
        run = analyses[head]
        if run.get("status") != "ok":
            return f"analysis {head} did not run ({run.get('status')}: {run.get('message', '')})"
        found = _walk(run.get("numbers", {}), rest, gate.where, "", seen)
        found = found or _walk(run, rest, gate.where, "", seen)
    else:
        found = _walk(rec.doc, gate.path, gate.where, "", seen)
    unknown = sorted(set(gate.where) - seen)
    if found and unknown:
        raise InputError(f"gate {gate.name!r}: filter {unknown[0]!r} is not a field of the "
                         f"records at that path (fields: {', '.join(sorted(seen)) or 'none'})")  # fmt: skip
    return found


def _check_value(gate: Gate, label: str, value: Any, low: Any, high: Any) -> tuple[bool, str]:
    label = label.strip("[]") or "value"
    if gate.has_equals and gate.min is None and gate.max is None:
        return value == gate.equals, f"{label} = {value!r} (must equal {gate.equals!r})"
    if isinstance(value, bool) or not isinstance(value, Real):
        if gate.has_equals:
            return value == gate.equals, f"{label} = {value!r} (must equal {gate.equals!r})"
        return False, f"{label} = {value!r} is not a number"
    if gate.strict and (low is None or high is None):
        raise InputError(f"gate {gate.name!r} is strict but {label} has no interval in "
                         "results.json (no _low/_high beside it)")  # fmt: skip
    ok, parts = True, []
    shown = f"{value:.4g}" + (f" [{low:.4g}, {high:.4g}]" if low is not None and high is not None
                              else "")  # fmt: skip
    if gate.min is not None:
        probe = low if gate.strict else value
        ok &= probe >= gate.min
        parts.append(f"min {gate.min:g}" + (" (lower bound)" if gate.strict else ""))
    if gate.max is not None:
        probe = high if gate.strict else value
        ok &= probe <= gate.max
        parts.append(f"max {gate.max:g}" + (" (upper bound)" if gate.strict else ""))
    if gate.has_equals:
        ok &= value == gate.equals
        parts.append(f"equals {gate.equals!r}")
    return bool(ok), f"{label} = {shown} ({', '.join(parts)})"


def _baseline_checks(gate: Gate, diff: Any) -> list[tuple[bool, str]]:
    rows = diff.changes[diff.changes["path"] == gate.name]
    for k, v in gate.where.items():
        rows = rows[rows["where"].str.split("; ").apply(lambda ws, t=f"{k}={v}": t in ws)]
    if rows.empty:
        paths = ", ".join(sorted(set(diff.changes["path"])))
        raise InputError(f"gate {gate.name!r}: no number of that path in both audits to compare "
                         f"with the baseline; paths compared: {paths}")  # fmt: skip
    out = []
    for r in rows.to_dict(orient="records"):
        sig = bool(r["significant"]) if r["significant"] is not None else False
        fell, rose = sig and r["change"] < 0, sig and r["change"] > 0
        bad = {"no_significant_fall": fell, "no_significant_rise": rose,
               "no_significant_change": fell or rose}[gate.baseline]  # fmt: skip
        out.append((not bad, f"{gate.name}[{r['where']}]: {r['old']:.4g} -> {r['new']:.4g}, "
                             f"change {r['change']:+.4g} [{r['ci_low']:.4g}, {r['ci_high']:.4g}], "
                             f"Holm p = {r['p_adjusted']:.3g} ({gate.baseline})"))  # fmt: skip
    return out


def evaluate_gates(
    rec: AuditRecord, gates: list[Gate], baseline: AuditRecord | None = None
) -> list[GateOutcome]:
    """Check every gate on ``rec`` (and against ``baseline`` for baseline gates).

    Raises
    ------
    InputError
        A path that is not in results.json (the message lists what is), a strict gate on a
        number without an interval, or a baseline gate without ``baseline``.
    """
    diff = None
    outcomes = []
    for gate in gates:
        checks: list[tuple[bool, str]] = []
        if gate.min is not None or gate.max is not None or gate.has_equals:
            found = resolve(rec, gate)
            if isinstance(found, str):
                checks.append((False, found))
            elif not found:
                raise InputError(f"gate {gate.name!r}: no such value in {rec.path}"
                                 f"{_hint(rec, gate)}")  # fmt: skip
            else:
                checks += [_check_value(gate, *f) for f in found]
        if gate.baseline:
            if baseline is None:
                raise InputError(f"gate {gate.name!r} compares with a baseline: give --baseline")
            if diff is None:
                from .diff import diff_audits

                diff = diff_audits(baseline, rec)
            checks += _baseline_checks(gate, diff)
        outcomes.append(GateOutcome(gate, all(ok for ok, _ in checks),
                                    tuple(text for _, text in checks)))  # fmt: skip
    return outcomes


def _hint(rec: AuditRecord, gate: Gate) -> str:
    run = rec.doc.get("analyses", {}).get(gate.path[0])
    if isinstance(run, Mapping) and isinstance(run.get("numbers"), Mapping):
        keys = ", ".join(sorted(map(str, run["numbers"])))
        return f"; analyses.{gate.path[0]}.numbers has: {keys}"
    names = ", ".join(sorted(rec.doc.get("analyses", {})))
    return f"; a path starts with an analysis ({names}) or a top-level key"


def junit_xml(outcomes: list[GateOutcome], suite: str = "primafacie check") -> str:
    """JUnit XML of the gate outcomes: one ``testcase`` per gate, a ``failure`` when it fails.

    The ``timestamp`` comes from ``SOURCE_DATE_EPOCH`` when set (reproducible builds), else
    the current time; all text goes through ElementTree, which escapes it.
    """
    failures = sum(not o.holds for o in outcomes)
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(int(epoch) if epoch else None))
    counts = {"tests": str(len(outcomes)), "failures": str(failures), "errors": "0"}
    root = ET.Element("testsuites", name=suite, time="0", **counts)
    ts = ET.SubElement(root, "testsuite", name=suite, hostname="primafacie", timestamp=stamp,
                       skipped="0", time="0", id="0", package="primafacie.gates", **counts)  # fmt: skip
    ET.SubElement(ts, "properties")
    for o in outcomes:
        case = ET.SubElement(ts, "testcase", name=o.gate.name, classname="primafacie.gates",
                             time="0")  # fmt: skip
        text = "\n".join(o.details)
        if o.holds:
            ET.SubElement(case, "system-out").text = text
        else:
            fail = ET.SubElement(case, "failure", type="GateFailed",
                                 message=f"{o.gate.name}: {o.gate.describe()}")  # fmt: skip
            fail.text = text
    ET.SubElement(ts, "system-out").text = ""
    ET.SubElement(ts, "system-err").text = ""
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"
