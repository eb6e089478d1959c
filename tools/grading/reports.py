"""What the instructor reads: a JSON file per submission, summary.csv, and the printed table."""

from __future__ import annotations

import csv
import json
import re
import textwrap
from pathlib import Path


def fmt(x: float) -> str:
    return f"{x:g}" if x == int(x) else f"{x:.2f}"


def report_names(results: list[dict]) -> list[str]:
    """A JSON file name per submission: its stem, with parent folders added when stems collide."""
    stems = [Path(r["submission"]).stem for r in results]
    names = []
    for r, stem in zip(results, stems):
        if stems.count(stem) > 1:
            parts = Path(r["submission"]).with_suffix("").parts[-3:]
            stem = "__".join(parts)
        names.append(re.sub(r"[^\w.-]", "_", stem))
    return names


def write_reports(results: list[dict], out: Path) -> tuple[Path, list[Path]]:
    out.mkdir(parents=True, exist_ok=True)
    files = []
    for r, name in zip(results, report_names(results)):
        f = out / f"{name}.json"
        f.write_text(json.dumps(r, indent=2, ensure_ascii=False) + "\n")
        files.append(f)
    questions = sorted({q for r in results for q in r["questions"]}, key=lambda q: (len(q), q))
    summary = out / "summary.csv"
    with open(summary, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(
            [
                "submission",
                "exercise",
                "points",
                "of",
                *questions,
                "status",
                "seconds",
                "integrity",
                "graded_as",
                "messages",
            ]
        )
        for r in results:
            w.writerow(
                [
                    r["submission"],
                    r["exercise"] or "",
                    fmt(r["points"]),
                    fmt(r["of"]),
                    *[
                        fmt(r["questions"][q]["points"]) if q in r["questions"] else ""
                        for q in questions
                    ],
                    r["status"],
                    r["seconds"],
                    " | ".join(r["integrity"]),
                    " ".join(f"{k}={v!r}" for k, v in r.get("graded_as", {}).items()),
                    " | ".join(
                        r["messages"] + [m for q in r["questions"].values() for m in q["messages"]]
                    )[:2000],
                ]
            )
    return summary, files


def table(results: list[dict]) -> str:
    questions = sorted({q for r in results for q in r["questions"]}, key=lambda q: (len(q), q))
    rows = [["submission", *questions, "total", "notes"]]
    for r in results:
        notes = (
            r["integrity"][:1]
            or [m for q in r["questions"].values() for m in q["messages"]][:1]
            or r["messages"][:1]
        )
        note = ("! " if r["integrity"] else "") + (notes[0] if notes else "")
        if r.get("graded_as"):  # exercise 12: the learner id graded, for the roster
            as_ = ", ".join(f"{k} {v!r}" for k, v in r["graded_as"].items())
            note = f"[{as_}] {note}"
        rows.append(
            [
                Path(r["submission"]).name,
                *[
                    (fmt(r["questions"][q]["points"]) + "/" + fmt(r["questions"][q]["of"]))
                    if q in r["questions"]
                    else "-"
                    for q in questions
                ],
                f"{fmt(r['points'])}/{fmt(r['of'])}"
                + ("" if r["status"] == "graded" else f" ({r['status']})"),
                textwrap.shorten(note, 70, placeholder="..."),
            ]
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    lines = [
        "  ".join(c.ljust(w) for c, w in zip(row[:-1], widths)) + "  " + row[-1] for row in rows
    ]
    lines.insert(1, "-" * min(120, max(len(line) for line in lines)))
    return "\n".join(lines)
