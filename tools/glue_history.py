"""Issue 20's glue "for the same behaviour": the count today minus the lines that commits of
new behaviour added to the glue files since the issue was filed.

The glue grew with behaviour other issues asked for (security, time windows, verdicts, reference
groups, scale) while issue 20 shrank it. ``git log --numstat`` gives each commit's net change to
the glue files (:data:`PATTERN`, the files :func:`glue_lines.glue_files` counts plus the deleted
``commands/_defaults.py``); ``tools/glue_behaviour.tsv`` names the commits of new behaviour and
why. Every other commit (issue 20's restructuring, renames, formatting) counts as structure, as
do merge resolutions (the residual between the count and the sum of the commits).

Usage::

    python tools/glue_history.py [--since 7e9ad93] [--list]
"""

from __future__ import annotations

import argparse
import re
import subprocess
from pathlib import Path

from glue_lines import glue_files, lines

HERE = Path(__file__).parent
#: The commit issue 20 was filed on, and its glue count then (the issue's "7,282 lines today").
FILED, FILED_GLUE = "7e9ad93", 7282
#: The glue files, as paths in the repository.
PATTERN = re.compile(
    r"^src/primafacie/(?:(?:situation|recourse|principal|certainty|groups)/"
    r"(?:params|spec|analysis|results|section|result)|commands/(?:situation|recourse|principal|"
    r"certainty|groups|_common|_analysis|_defaults))\.py$"
)


def net_by_commit(since: str, repo: Path) -> list[tuple[str, int, str]]:
    """``(short hash, net lines, subject)`` of every commit after ``since`` that changed the
    glue files, oldest first (merge commits are not listed: their resolutions are the
    residual)."""
    log = subprocess.run(
        ["git", "log", "--reverse", "--no-renames", "--numstat", "--format=@@%h%x00%s",
         f"{since}..HEAD"], cwd=repo, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    out: list[list] = []
    for line in log.splitlines():
        if line.startswith("@@"):
            short, subject = line[2:].split("\x00", 1)
            out.append([short, None, subject])
        elif line.strip():
            added, deleted, path = line.split("\t")
            if PATTERN.match(path) and added != "-":
                out[-1][1] = (out[-1][1] or 0) + int(added) - int(deleted)
    return [(h, n, s) for h, n, s in out if n is not None]


def behaviour(path: Path = HERE / "glue_behaviour.tsv") -> dict[str, str]:
    """The commits of new behaviour (short hash → why), from ``glue_behaviour.tsv``."""
    rows = (ln.split("\t", 1) for ln in path.read_text().splitlines() if ln and ln[0] != "#")
    return {h.strip(): why.strip() for h, why in rows}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--since", default=FILED)
    parser.add_argument("--list", action="store_true", help="every behaviour commit, with why")
    args = parser.parse_args(argv)
    repo = HERE.parent
    now = sum(lines(f) for f in glue_files(repo / "src/primafacie"))
    commits, added = net_by_commit(args.since, repo), behaviour()
    unknown = sorted(set(added) - {h for h, _, _ in commits})
    if unknown:
        raise SystemExit(f"glue_behaviour.tsv names commits that changed no glue: {unknown}")
    beh = sum(n for h, n, _ in commits if h in added)
    struct = sum(n for h, n, _ in commits if h not in added)
    if args.list:
        for h, n, _ in commits:
            if h in added:
                print(f"{n:+6d}  {h}  {added[h]}")
    print(f"{FILED_GLUE:6d}  glue when issue 20 was filed ({FILED})")
    print(f"{struct:+6d}  structure: {sum(h not in added for h, _, _ in commits)} commits")
    print(f"{now - FILED_GLUE - beh - struct:+6d}  merge resolutions (the residual)")
    print(f"{beh:+6d}  new behaviour: {len(added)} commits (tools/glue_behaviour.tsv)")
    print(f"{now:6d}  glue today")
    same = now - beh
    print(f"{same:6d}  glue for the behaviour as filed (today minus new behaviour): "
          f"{FILED_GLUE - same:,} fewer (issue 20 asks at least 2,000)")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
