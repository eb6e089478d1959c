"""The course manifest, course.yml, and the files written from it.

    python tools/course.py sync       write _toc.yml, index.md's chapter list and README.md's
                                      chapter table from course.yml
    python tools/course.py --check    change nothing; exit 1, naming each file, if sync would
                                      change anything or course.yml disagrees with the files

course.yml lists every part, chapter, exercise, explorer and time budget once. Written from it:

- ``_toc.yml``, whole: the parts and their chapters, then Practice (each chapter's exercise),
  Solutions (each exercise's worked solutions) and Reference;
- ``index.md``, the chapter list between its ``% BEGIN course.yml`` and ``% END course.yml``
  lines (MyST comments); the text around them is written by hand;
- ``README.md``, the chapter table between its ``<!-- BEGIN course.yml`` and
  ``<!-- END course.yml`` lines (HTML comments); the text around them is written by hand.

Read from it: the tests' explorer chapters (tests/test_browser.py), the chapters' time budgets
(benchmarks/chapter_times.py), and the exercises tools/exercises.py expects in
exercises/masters/. ``--check`` also fails where course.yml disagrees with the files themselves:
a chapter notebook it does not list (or one it lists that is missing), a first heading that is
not ``# NN. title``, an exercise without its master, a chapter that shows other explorers than
it lists. Import :func:`load_course` to read it (``sys.path.insert(0, "tools")``).
"""

from __future__ import annotations

import argparse
import ast
import difflib
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
MANIFEST = ROOT / "course.yml"

CHAPTER_FILE = re.compile(r"^chapters/(\d\d)_[a-z0-9_]+$")
EXERCISE_FILE = re.compile(r"^exercises/ex(\d\d)_[a-z0-9_]+$")
IDENTIFIER = re.compile(r"^[A-Za-z_]\w*$")
CHAPTER_KEYS = {"number", "file", "title", "exercise", "explorers", "budget_s"}
REQUIRED_CHAPTER_KEYS = CHAPTER_KEYS - {"exercise"}
TOP_KEYS = {"parts", "practice", "solutions", "reference"}

TOC_HEADER = """\
# Table of contents of "Attention, step by step".
# Written by tools/course.py sync from course.yml: edit course.yml, not this file.
"""
# (file, the line that opens the generated block, the line that closes it)
MARKERS = {
    "index.md": (
        "% BEGIN course.yml: the chapter list, written by tools/course.py sync; edit course.yml",
        "% END course.yml",
    ),
    "README.md": (
        "<!-- BEGIN course.yml: the chapter table, written by tools/course.py sync;"
        " edit course.yml -->",
        "<!-- END course.yml -->",
    ),
}


class CourseError(ValueError):
    """course.yml is not what tools/course.py expects (the message says where and why)."""


@dataclass(frozen=True)
class Chapter:
    number: int
    file: str  # chapters/NN_topic
    title: str  # the notebook's first heading is "# NN. title"
    explorers: tuple[str, ...]
    budget_s: float
    part: str
    exercise: str | None = None  # exercises/exNN_topic

    @property
    def notebook(self) -> str:
        """The notebook's file name, e.g. ``03_softmax.ipynb``."""
        return self.file.rsplit("/", 1)[1] + ".ipynb"

    @property
    def heading(self) -> str:
        return f"# {self.number}. {self.title}"

    @property
    def exercise_name(self) -> str | None:
        """``exNN_topic``, the name of the exercise's master, zip and notebooks."""
        return self.exercise.rsplit("/", 1)[1] if self.exercise else None

    @property
    def solutions(self) -> str | None:
        return f"exercises/solutions/{self.exercise_name}" if self.exercise else None


@dataclass(frozen=True)
class Page:
    file: str
    title: str


@dataclass(frozen=True)
class Part:
    caption: str
    chapters: tuple[Chapter, ...]


@dataclass(frozen=True)
class Course:
    parts: tuple[Part, ...]
    practice: str
    solutions: str
    reference_caption: str
    reference: tuple[Page, ...] = field(default=())

    @property
    def chapters(self) -> list[Chapter]:
        return [ch for part in self.parts for ch in part.chapters]

    @property
    def exercises(self) -> list[str]:
        """The exercises' names (``exNN_topic``), in chapter order."""
        return [ch.exercise_name for ch in self.chapters if ch.exercise]

    def explorer_chapters(self) -> dict[str, int]:
        """{chapters/NN_topic: how many explorers it shows} for each chapter that shows one."""
        return {ch.file: len(ch.explorers) for ch in self.chapters if ch.explorers}

    def budgets(self) -> dict[str, float]:
        """{NN_topic.ipynb: seconds it may take to execute on 2 CPU cores}."""
        return {ch.notebook: ch.budget_s for ch in self.chapters}


# ---------------------------------------------------------------------------------------------
# reading course.yml


def _fail(where: str, expected: str, got, cause: str) -> CourseError:
    return CourseError(f"course.yml, {where}: expected {expected}, got {got!r} ({cause})")


def _chapter(entry, part: str, position: int) -> Chapter:
    where = f"part {part!r}, chapter entry {position}"
    if not isinstance(entry, dict):
        raise _fail(where, "a mapping of number, file, title, ...", entry, "a bad indentation?")
    unknown = set(entry) - CHAPTER_KEYS
    if unknown:
        raise _fail(where, f"only the keys {sorted(CHAPTER_KEYS)}", sorted(unknown), "a typo?")
    missing = REQUIRED_CHAPTER_KEYS - set(entry)
    if missing:
        raise _fail(
            where,
            f"the keys {sorted(REQUIRED_CHAPTER_KEYS)}",
            sorted(entry),
            f"{sorted(missing)} missing",
        )
    number, file, title = entry["number"], entry["file"], entry["title"]
    if not isinstance(number, int) or isinstance(number, bool):
        raise _fail(where, "a whole number", number, "number is the chapter's number")
    m = CHAPTER_FILE.match(str(file))
    if not m or int(m.group(1)) != number:
        raise _fail(
            where,
            f"file chapters/{number:02d}_topic (lower case, no .ipynb)",
            file,
            "the file name starts with the chapter's number",
        )
    if not isinstance(title, str) or not title.strip() or title != title.strip():
        raise _fail(
            where,
            "a title (the notebook's first heading without '# NN. ')",
            title,
            "an empty title or spaces around it",
        )
    exercise = entry.get("exercise")
    if exercise is not None:
        e = EXERCISE_FILE.match(str(exercise))
        if not e or int(e.group(1)) != number:
            raise _fail(
                where,
                f"exercise exercises/ex{number:02d}_topic (no .ipynb)",
                exercise,
                "an exercise is numbered like its chapter",
            )
    explorers = entry["explorers"]
    if not isinstance(explorers, list) or not all(
        isinstance(x, str) and IDENTIFIER.match(x) for x in explorers
    ):
        raise _fail(
            where,
            "explorers as a list of tutorlib.explorers function names ([] for none)",
            explorers,
            "write [] when the chapter shows no explorer",
        )
    budget = entry["budget_s"]
    if not isinstance(budget, (int, float)) or isinstance(budget, bool) or budget <= 0:
        raise _fail(
            where,
            "budget_s, a number of seconds above 0",
            budget,
            "the time the chapter may take to execute",
        )
    return Chapter(
        number=number,
        file=file,
        title=title,
        explorers=tuple(explorers),
        budget_s=float(budget),
        part=part,
        exercise=exercise,
    )


def parse_course(data) -> Course:
    """A :class:`Course` from course.yml's content (a dict, as ``yaml.safe_load`` reads it)."""
    if not isinstance(data, dict):
        raise _fail(
            "top level",
            f"a mapping with {sorted(TOP_KEYS)}",
            type(data).__name__,
            "an empty or broken file?",
        )
    if set(data) != TOP_KEYS:
        raise _fail(
            "top level",
            f"exactly the keys {sorted(TOP_KEYS)}",
            sorted(data),
            "a missing or misspelt key",
        )
    if not isinstance(data["parts"], list) or not data["parts"]:
        raise _fail(
            "parts",
            "a list of parts, each a caption and its chapters",
            data["parts"],
            "no chapters at all?",
        )
    parts = []
    for i, part in enumerate(data["parts"], 1):
        if not isinstance(part, dict) or set(part) != {"caption", "chapters"}:
            raise _fail(
                f"part {i}",
                "a mapping of caption and chapters",
                part,
                "a bad indentation or a misspelt key",
            )
        caption = part["caption"]
        if not isinstance(caption, str) or not caption.strip():
            raise _fail(f"part {i}", "a caption (text)", caption, "every part has a caption")
        if not isinstance(part["chapters"], list) or not part["chapters"]:
            raise _fail(
                f"part {caption!r}",
                "a list of chapters",
                part["chapters"],
                "a part without chapters",
            )
        chapters = tuple(_chapter(e, caption, j) for j, e in enumerate(part["chapters"], 1))
        parts.append(Part(caption=caption, chapters=chapters))
    numbers = [ch.number for part in parts for ch in part.chapters]
    if numbers != list(range(1, len(numbers) + 1)):
        raise _fail(
            "parts",
            f"chapters numbered 1 to {len(numbers)} in reading order",
            numbers,
            "a chapter left out, repeated, or listed out of order",
        )
    for key in ("practice", "solutions"):
        if not isinstance(data[key], str) or not data[key].strip():
            raise _fail(key, "the caption of that part of the contents", data[key], "empty")
    reference = data["reference"]
    if not isinstance(reference, dict) or set(reference) != {"caption", "pages"}:
        raise _fail("reference", "a mapping of caption and pages", reference, "a misspelt key")
    pages = []
    for i, page in enumerate(reference["pages"] or [], 1):
        if not isinstance(page, dict) or set(page) != {"file", "title"}:
            raise _fail(
                f"reference page {i}", "a mapping of file and title", page, "a misspelt key"
            )
        pages.append(Page(file=page["file"], title=page["title"]))
    captions = [p.caption for p in parts] + [
        data["practice"],
        data["solutions"],
        reference["caption"],
    ]
    if len(set(captions)) != len(captions):
        raise _fail(
            "parts",
            "captions that differ from one another",
            captions,
            "two parts of the contents with one name",
        )
    return Course(
        parts=tuple(parts),
        practice=data["practice"],
        solutions=data["solutions"],
        reference_caption=reference["caption"],
        reference=tuple(pages),
    )


def load_course(path: Path = MANIFEST) -> Course:
    """The course as course.yml describes it (checked: see :func:`parse_course`)."""
    return parse_course(yaml.safe_load(Path(path).read_text(encoding="utf-8")))


# ---------------------------------------------------------------------------------------------
# the files written from it


def toc_text(course: Course) -> str:
    """_toc.yml: the chapters' parts, then Practice, Solutions and Reference."""
    lines = [TOC_HEADER.rstrip("\n"), "format: jb-book", "root: index", "parts:"]

    def part(caption: str, files: list[str]) -> None:
        if files:
            lines.extend([f"  - caption: {caption}", "    chapters:"])
            lines.extend(f"      - file: {f}" for f in files)

    for p in course.parts:
        part(p.caption, [ch.file for ch in p.chapters])
    part(course.practice, [ch.exercise for ch in course.chapters if ch.exercise])
    part(course.solutions, [ch.solutions for ch in course.chapters if ch.exercise])
    part(course.reference_caption, [page.file for page in course.reference])
    text = "\n".join(lines) + "\n"
    yaml.safe_load(text)  # still valid
    return text


def index_lines(course: Course) -> list[str]:
    """index.md's chapter list: each chapter, and its exercise beside it."""
    lines = []
    for ch in course.chapters:
        line = f"- {{doc}}`{ch.file}`"
        if ch.exercise:
            line += f" · practice: {{doc}}`exercise {ch.number} <{ch.exercise}>`"
        lines.append(line)
    return lines


def readme_lines(course: Course) -> list[str]:
    """README.md's chapter table: each chapter's heading and a link to its notebook."""
    lines = ["| chapter | notebook |", "|---|---|"]
    for ch in course.chapters:
        path = f"{ch.file}.ipynb"
        lines.append(f"| {ch.number}. {ch.title} | [`{path}`]({path}) |")
    return lines


def replace_block(name: str, current: str, body: list[str]) -> str:
    """``current`` (the text of ``name``) with the lines between its two markers replaced."""
    begin, end = MARKERS[name]
    lines = current.split("\n")
    starts = [i for i, line in enumerate(lines) if line.strip() == begin]
    ends = [i for i, line in enumerate(lines) if line.strip() == end]
    if len(starts) != 1 or len(ends) != 1 or ends[0] < starts[0]:
        raise CourseError(
            f"{name}: expected one line {begin!r} and, after it, one line {end!r} around the "
            f"generated block; found {len(starts)} and {len(ends)} (a marker edited or deleted?)"
        )
    # a blank line on each side: the block is a list or table of its own, whatever the markers
    return "\n".join(lines[: starts[0] + 1] + ["", *body, ""] + lines[ends[0] :])


def generated(course: Course, root: Path = ROOT) -> dict[Path, str]:
    """{path: the text sync writes there} for every file written from ``course``."""
    index, readme = root / "index.md", root / "README.md"
    return {
        root / "_toc.yml": toc_text(course),
        index: replace_block("index.md", index.read_text(encoding="utf-8"), index_lines(course)),
        readme: replace_block(
            "README.md", readme.read_text(encoding="utf-8"), readme_lines(course)
        ),
    }


# ---------------------------------------------------------------------------------------------
# course.yml against the files themselves


def first_heading(path: Path) -> str | None:
    """The first '# ' line of a notebook's markdown cells, or of a Markdown page."""
    if path.suffix == ".ipynb":
        import nbformat

        nb = nbformat.read(path, as_version=4)
        text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    else:
        text = path.read_text(encoding="utf-8")
    return next((line.strip() for line in text.splitlines() if line.startswith("# ")), None)


def explorer_calls(path: Path) -> list[str]:
    """The explorers a chapter notebook shows: each call of a function named ``*_explorer`` or
    ``*_editor`` in its code cells, in order (IPython's ``%`` and ``!`` lines left out)."""
    import nbformat

    nb = nbformat.read(path, as_version=4)
    calls = []
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        source = "\n".join(
            line for line in cell.source.splitlines() if not line.lstrip().startswith(("%", "!"))
        )
        found = []
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.Call):
                name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
                if name and name.endswith(("_explorer", "_editor")):
                    found.append((node.lineno, node.col_offset, name))
        calls.extend(name for _, _, name in sorted(found))
    return calls


def problems(course: Course, root: Path = ROOT) -> list[str]:
    """Where course.yml disagrees with the repository's files (empty when it agrees)."""
    found = []
    listed = {f"{ch.file}.ipynb" for ch in course.chapters}
    on_disk = {f"chapters/{p.name}" for p in (root / "chapters").glob("[0-9][0-9]_*.ipynb")}
    for extra in sorted(on_disk - listed):
        found.append(f"{extra}: a chapter notebook course.yml does not list (add its entry)")
    masters = {p.stem for p in (root / "exercises" / "masters").glob("ex[0-9][0-9]_*.ipynb")}
    for extra in sorted(masters - set(course.exercises)):
        found.append(
            f"exercises/masters/{extra}.ipynb: an exercise master no chapter of "
            f"course.yml names (add `exercise: exercises/{extra}` to its chapter)"
        )
    for ch in course.chapters:
        notebook = root / f"{ch.file}.ipynb"
        if not notebook.is_file():
            found.append(f"{ch.file}.ipynb: listed in course.yml (chapter {ch.number}) but missing")
            continue
        heading = first_heading(notebook)
        if heading != ch.heading:
            found.append(
                f"{ch.file}.ipynb: the first heading is {heading!r}, course.yml says "
                f"{ch.heading!r} (change one of them)"
            )
        shown = explorer_calls(notebook)
        if shown != list(ch.explorers):
            found.append(
                f"{ch.file}.ipynb: shows the explorers {shown}, course.yml lists "
                f"{list(ch.explorers)} (in the order the chapter shows them)"
            )
        if ch.exercise and ch.exercise_name not in masters:
            found.append(
                f"exercises/masters/{ch.exercise_name}.ipynb: chapter {ch.number}'s "
                "exercise in course.yml, but there is no such master"
            )
    for page in course.reference:
        path = next(
            (
                root / f"{page.file}{ext}"
                for ext in (".md", ".ipynb")
                if (root / f"{page.file}{ext}").is_file()
            ),
            None,
        )
        if path is None:
            found.append(f"{page.file}: a reference page in course.yml, no .md or .ipynb")
        elif first_heading(path) != f"# {page.title}":
            found.append(
                f"{path.relative_to(root)}: the first heading is {first_heading(path)!r}, "
                f"course.yml says '# {page.title}'"
            )
    return found


# ---------------------------------------------------------------------------------------------


def sync(check: bool, root: Path = ROOT, manifest: Path | None = None) -> int:
    try:
        course = load_course(manifest or root / "course.yml")
        wanted = generated(course, root)
    except CourseError as error:
        print(error, file=sys.stderr)
        return 1
    changed = []
    for path, text in wanted.items():
        old = path.read_text(encoding="utf-8") if path.exists() else ""
        if old != text:
            changed.append(path)
            rel = path.relative_to(root)
            if check:
                print(f"would change: {rel}")
                diff = difflib.unified_diff(old.splitlines(), text.splitlines(), lineterm="", n=1)
                print("\n".join(list(diff)[2:42]))
            else:
                path.write_text(text, encoding="utf-8")
                print(f"wrote: {rel}")
    disagreements = problems(course, root)
    for problem in disagreements:
        print(problem)
    if check and changed:
        print("run: python tools/course.py sync", file=sys.stderr)
    if disagreements or (check and changed):
        return 1
    if not changed:
        print(f"up to date: {len(course.chapters)} chapters, {len(course.exercises)} exercises")
    return 0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "command",
        nargs="?",
        choices=["sync"],
        default="sync",
        help="write the generated files (the default)",
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="change nothing; exit 1 if anything would change or disagrees",
    )
    args = parser.parse_args(argv)
    return sync(check=args.check)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
