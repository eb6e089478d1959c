"""Put the book's MathJax 3 (and the tests' axe-core) into vendor/, so nothing comes from a CDN.

    # fetch (once), verify, unpack into vendor/static (if changed)
    .venv/bin/python tools/vendor_assets.py
    # verify vendor/static against the pinned tarballs
    .venv/bin/python tools/vendor_assets.py --check

`make book` runs it before the build. The build copies vendor/static into
_build/html/_static (`html_static_path` in _config.yml), and `mathjax_path`
points there, so a reader's browser asks nothing of a CDN. (The explorers need
no widget library in the book: their static twins are plain HTML switched by
assets/course.js; see tutorlib/explorers/static.py.)

axe-core, the accessibility checker tests/test_browser.py runs on every page,
is vendored the same way into vendor/tests/axe-core: the tests inject it into
each page, and the book itself does not carry it.

Each package is pinned to an exact version and to the sha512 integrity the npm
registry publishes for it (`npm view NAME@VERSION dist.integrity`). The tarball
is fetched with `npm pack` into vendor/npm/ and reused while it still matches
its integrity; a mismatch is an error, never a silent refetch of something else.
To move to a new version, change `version` and `integrity` together below.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import shutil
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

ROOT = Path(__file__).resolve().parent.parent
VENDOR = ROOT / "vendor"
CACHE = VENDOR / "npm"  # the downloaded tarballs, kept between builds
STATIC = VENDOR / "static"  # copied as is into _build/html/_static by Sphinx
TESTS = VENDOR / "tests"  # what only the tests load (not part of the book)

# es5/*.js combined bundles the book does not load (it loads tex-chtml.js)
MATHJAX_OTHER_BUNDLES = {
    "tex-mml-chtml.js",
    "tex-chtml-full.js",
    "tex-chtml-full-speech.js",
    "tex-svg.js",
    "tex-svg-full.js",
    "tex-mml-svg.js",
    "mml-chtml.js",
    "mml-svg.js",
    "node-main.js",
}


def _mathjax_file(rel: PurePosixPath) -> bool:
    # Everything tex-chtml.js may load lazily from its own folder: TeX extensions (autoload),
    # CHTML fonts, the menu and its accessibility options (a11y/, sre/), the SVG output it can
    # switch to.
    return not (len(rel.parts) == 1 and rel.name in MATHJAX_OTHER_BUNDLES)


@dataclass(frozen=True)
class Package:
    name: str  # npm name
    version: str  # exact version
    integrity: str  # the registry's dist.integrity for that version
    source: str  # folder inside the tarball to take files from
    dest: str  # folder under vendor/static (and _build/html/_static)
    keep: Callable[[PurePosixPath], bool]  # which files of `source` to take
    extra: tuple[str, ...] = ()  # files outside `source` to take too (licenses)
    in_book: bool = True  # False: under vendor/tests, for the tests only

    @property
    def home(self) -> Path:
        """Where its files go: vendor/static/<dest> (the book's) or vendor/tests/<dest>."""
        return (STATIC if self.in_book else TESTS) / self.dest

    @property
    def spec(self) -> str:
        return f"{self.name}@{self.version}"

    @property
    def tarball(self) -> Path:
        # npm pack's file name: scope and name joined by '-', then the version
        return CACHE / f"{self.name.lstrip('@').replace('/', '-')}-{self.version}.tgz"


PACKAGES = (
    Package(
        name="mathjax",
        version="3.2.2",
        integrity="sha512-Bt+SSVU8eBG27zChVewOicYs7Xsdt40qm4+UpHyX7k0/O9NliPc+x77k1/FEsPsjKPZGJvtRZM1vO+geW0OhGw==",
        source="package/es5",
        dest="mathjax",
        keep=_mathjax_file,
        extra=("package/LICENSE",),
    ),
    Package(  # the WCAG checker of tests/test_browser.py
        name="axe-core",
        version="4.14.1",
        integrity="sha512-FHfa+lmNjQZfJz1q8wKqIDwC6DExcHt/pkjNQb09a3NPjCKg2rhu5qb2S4r76ASyFNNtuFooJpZe37OgudVGtQ==",
        source="package",
        dest="axe-core",
        keep=lambda rel: str(rel) in ("axe.min.js", "LICENSE"),
        in_book=False,
    ),
)

AXE = next(p for p in PACKAGES if p.name == "axe-core").home / "axe.min.js"


class VendorError(RuntimeError):
    """A vendored asset could not be fetched or does not match its pin."""


def integrity_of(path: Path) -> str:
    """The npm-style integrity string (sha512, base64) of a file."""
    return "sha512-" + base64.b64encode(hashlib.sha512(path.read_bytes()).digest()).decode()


def _verified(pkg: Package, path: Path) -> bool:
    return path.is_file() and integrity_of(path) == pkg.integrity


def fetch(pkg: Package) -> Path:
    """The verified tarball of `pkg`, from vendor/npm/ when it is there, else from the npm
    registry."""
    if _verified(pkg, pkg.tarball):
        return pkg.tarball
    npm = shutil.which("npm")
    if npm is None:
        raise VendorError(
            f"npm is needed to fetch {pkg.spec} from the npm registry (the book serves MathJax and "
            "the widget scripts itself), but `npm` is not on PATH. Install Node.js with npm "
            "(Debian/Ubuntu: `apt-get install npm`; `make book` does this when apt-get is "
            "available)."
        )
    CACHE.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=CACHE) as tmp:
        cmd = [
            npm,
            "pack",
            pkg.spec,
            "--pack-destination",
            tmp,
            "--loglevel",
            "error",
            "--fetch-retries",
            "1",
            "--fetch-timeout",
            "60000",
        ]
        run = subprocess.run(cmd, capture_output=True, text=True)
        got = sorted(Path(tmp).glob("*.tgz"))
        if run.returncode != 0 or len(got) != 1:
            raise VendorError(
                f"`npm pack {pkg.spec}` failed (exit {run.returncode}), so the book's {pkg.dest} "
                "assets could not be fetched. Is https://registry.npmjs.org reachable (proxy, "
                "offline)? npm said:\n" + (run.stderr.strip() or run.stdout.strip() or "(nothing)")
            )
        if not _verified(pkg, got[0]):
            raise VendorError(
                f"{pkg.spec} from the registry does not match its pinned integrity: expected "
                f"{pkg.integrity}, got {integrity_of(got[0])}. Either the pin in "
                "tools/vendor_assets.py is wrong (check `npm view "
                + pkg.spec
                + " dist.integrity`) or the download was altered."
            )
        got[0].replace(pkg.tarball)
    return pkg.tarball


def wanted_files(pkg: Package, tarball: Path) -> dict[str, bytes]:
    """Relative path under vendor/static/<dest> -> contents, for every file of the tarball the book
    uses."""
    files: dict[str, bytes] = {}
    source = PurePosixPath(pkg.source)
    with tarfile.open(tarball, "r:gz") as tar:
        for member in tar.getmembers():
            name = PurePosixPath(member.name)
            if not member.isfile() or name.is_absolute() or ".." in name.parts:
                continue
            if str(name) in pkg.extra:
                rel = PurePosixPath(name.name)
            elif name.is_relative_to(source) and pkg.keep(name.relative_to(source)):
                rel = name.relative_to(source)
            else:
                continue
            files[str(rel)] = tar.extractfile(member).read()
    if not files:
        raise VendorError(
            f"{tarball.name} has no files under {pkg.source}: is the pin for the right package?"
        )
    return files


def _differences(pkg: Package, wanted: dict[str, bytes], dest: Path, exact: bool) -> list[str]:
    """What in `dest` differs from the files the book takes from `pkg` (missing, changed; extra if
    exact)."""
    problems = []
    for rel, data in wanted.items():
        path = dest / rel
        if not path.is_file():
            problems.append(f"{path} is missing ({pkg.spec})")
        elif path.read_bytes() != data:
            problems.append(f"{path} differs from {pkg.spec}'s {rel}")
    if exact and dest.is_dir():
        extra = {p.relative_to(dest).as_posix() for p in dest.rglob("*") if p.is_file()} - set(
            wanted
        )
        problems += [f"{dest / rel} is not part of {pkg.spec}" for rel in sorted(extra)]
    return problems


def unpack(pkg: Package, tarball: Path) -> Path:
    """vendor/static/<dest>, (re)written from the verified tarball unless it already holds exactly
    its files."""
    dest = pkg.home
    wanted = wanted_files(pkg, tarball)
    if dest.is_dir() and not _differences(pkg, wanted, dest, exact=True):
        return dest
    if dest.exists():
        shutil.rmtree(dest)
    for rel, data in wanted.items():
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    return dest


def check(static: Path | None = None) -> list[str]:
    """Differences between `static` (vendor/static, or a built site's _static) and the pinned
    tarballs.

    Each vendored file must be there with the tarball's bytes; in vendor/static no other file may be
    (a built site's _static holds the theme's files too). Without `static`, the tests' packages
    (vendor/tests) are checked as well; a built site holds only the book's. Needs the tarballs in
    vendor/npm (the build fetched them).
    """
    problems = []
    for pkg in PACKAGES:
        if static is not None and not pkg.in_book:
            continue
        if not _verified(pkg, pkg.tarball):
            problems.append(
                f"{_shown(pkg.tarball)} is missing or does not match {pkg.spec}'s "
                "integrity: run tools/vendor_assets.py"
            )
            continue
        dest = pkg.home if static is None else static / pkg.dest
        problems += _differences(pkg, wanted_files(pkg, pkg.tarball), dest, exact=static is None)
    return problems


def _shown(path: Path) -> str:
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--check",
        action="store_true",
        help="only verify vendor/static against the pinned tarballs; fetch nothing",
    )
    args = parser.parse_args(argv)
    try:
        if args.check:
            problems = check()
            for line in problems:
                print(line, file=sys.stderr)
            print(f"vendored assets: {'OK' if not problems else f'{len(problems)} problem(s)'}")
            return 1 if problems else 0
        for pkg in PACKAGES:
            dest = unpack(pkg, fetch(pkg))
            count = sum(1 for p in dest.rglob("*") if p.is_file())
            print(f"vendored {pkg.spec} -> {_shown(dest)} ({count} files, integrity verified)")
    except VendorError as err:
        print(f"tools/vendor_assets.py: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
