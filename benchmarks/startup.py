"""Start-up cost of the CLI and of the small reproductions (issue 22, item 3).

Each case runs in its own subprocess, three times; the table keeps the run with the fewest CPU
seconds (user + sys of the child, from ``os.wait4``: the machine is shared, so CPU seconds
move less with the load than wall seconds), its wall seconds, its peak resident memory and the
1-minute load average when it ended.

Usage::

    python benchmarks/startup.py [--repeat 3] [--data-dir ../shared/data] [--markdown]

The reproductions write into a temporary folder and need the datasets (``$PRIMAFACIE_DATA``).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time


def cases(out: str) -> list[tuple[str, list[str]]]:
    """The measured commands: (label, argv)."""
    py = [sys.executable]
    cli = py + ["-m", "primafacie"]
    return [
        ("bare python", py + ["-c", "pass"]),
        ("primafacie --help", cli + ["--help"]),
        # the package is lazy: import the engine itself, what a command loads first
        (
            "import primafacie.situation (SituationTest)",
            py + ["-c", "from primafacie.situation import SituationTest"],
        ),
        ("reproduce cst-loan", cli + ["reproduce", "cst-loan", "--out", out]),
        ("reproduce cst-law", cli + ["reproduce", "cst-law", "--out", out]),
    ]


def run_once(argv: list[str], env: dict) -> tuple[float, float, float]:
    """Run ``argv`` once; return (wall s, CPU s of the child, peak MB of the child)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode() if proc.stderr else ""
    proc.stderr.close()
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} exited {proc.returncode}:\n{err}")
    # ru_maxrss is in kilobytes on Linux.
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def main(argv: list[str] | None = None) -> None:
    """Print one row per case: the best of ``--repeat`` runs by CPU seconds."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--data-dir", default=None, help="default $PRIMAFACIE_DATA")
    parser.add_argument("--only", nargs="*", help="labels of the cases to run")
    args = parser.parse_args(argv)
    env = dict(os.environ)
    if args.data_dir:
        env["PRIMAFACIE_DATA"] = args.data_dir
    print("| case | wall s | CPU s (user+sys) | peak MB | load avg |")
    print("|---|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as out:
        for label, cmd in cases(out):
            if args.only and label not in args.only:
                continue
            runs = [run_once(cmd, env) for _ in range(args.repeat)]
            wall, cpu, peak = min(runs, key=lambda r: r[1])
            load = os.getloadavg()[0]
            print(f"| {label} | {wall:.2f} | {cpu:.2f} | {peak:.0f} | {load:.2f} |", flush=True)


if __name__ == "__main__":
    main()
