"""Publishing and launching: the GitHub workflows run the README's two commands, and the
Binder and Colab environments run the chapters.

The workflow checks read YAML only. The environment checks build fresh virtualenvs in a
session-scoped temporary folder (one helper, ``make_venv``, builds both) and execute chapter
notebooks in them with nbclient, the way a learner's Jupyter would:

- Binder: ``binder/requirements.txt``, then ``binder/postBuild`` from the repository root,
  as repo2docker does; the chapters must import tutorlib from the checkout, and torch must
  be the CPU build that constraints.txt pins.
- Colab: torch, numpy, matplotlib, ipywidgets and Jupyter preinstalled, tutorlib absent; the
  notebook's first cell must install it, here from a copy of the checkout named by
  ``TUTORLIB_SOURCE``.

Every pip install goes through constraints.txt (``-c``, and ``PIP_CONSTRAINT`` for the pip
that postBuild and the notebooks' install cell run), so torch stays the CPU 2.13.0.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest
import yaml
from packaging.requirements import Requirement

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: pytest depends on tomli there
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
CONSTRAINTS = ROOT / "constraints.txt"
WORKFLOWS = ROOT / ".github" / "workflows"
PUBLISH = WORKFLOWS / "publish.yml"
TEST = WORKFLOWS / "test.yml"
CI_RUN = ROOT / ".ci" / "run"
BINDER = ROOT / "binder"
PAGES_ARTIFACT = "_build/html"

# What the environments execute. Binder: the chapter with the sliders (ipywidgets), the first
# that computes with torch, and the one that writes a workbook (openpyxl); together they use
# every runtime dependency the chapters have so far. nbval executes every chapter already.
BINDER_CHAPTERS = ["03_softmax.ipynb", "05_multi_head_attention.ipynb", "07_cross_attention.ipynb"]
# Colab: a chapter that needs the preinstalled torch and tutorlib.nn.
COLAB_CHAPTER = "06_masking.ipynb"
# What Colab has before the first cell runs (and nbclient, which executes the notebook).
COLAB_PREINSTALLED = ["torch", "numpy", "matplotlib", "ipywidgets", "ipykernel", "nbclient"]
# The Binder image provides Jupyter (a kernel); nbclient executes the notebooks.
JUPYTER = ["ipykernel", "nbclient"]

# binder/requirements.txt names PyTorch's CPU index with --extra-index-url. The test machines
# reach only the package registries, so that index is unreachable there and pip falls back to
# the local CPU wheel (pip's find-links) or PyPI; where it is reachable (a laptop, GitHub's
# runners) pip uses it, as Binder does. The file is installed unchanged, so what pip reads is
# what repo2docker reads. By default pip retries an unreachable index 5 times with back-off for
# every package it looks up: 7.5 minutes measured for this environment. With one immediate retry
# and a 5 s timeout a failed lookup costs nothing (the host does not resolve), while one
# transient error on PyPI is still retried.
PIP_NETWORK = ["--retries", "1", "--timeout", "5"]


# --- what the README, the workflows and the Binder files say ---------------------------------


def readme_commands() -> tuple[str, str]:
    """The (build, test) commands of the README's ```bash block under "## The two commands"."""
    text = README.read_text()
    match = re.search(r"^## The two commands\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    assert match, 'README.md has no "## The two commands" section'
    block = re.search(r"```bash\n(.*?)```", match.group(1), re.S)
    assert block, 'README.md\'s "## The two commands" section has no ```bash block'
    commands = [line.split("#", 1)[0].strip() for line in block.group(1).splitlines()]
    commands = [c for c in commands if c]
    assert len(commands) == 2, (
        f"expected two commands (build, test) in the README's bash block, found {commands}"
    )
    return commands[0], commands[1]


def load_workflow(path: Path) -> dict:
    assert path.is_file(), f"no workflow at {path.relative_to(ROOT)}"
    workflow = yaml.safe_load(path.read_text())
    assert isinstance(workflow, dict) and "jobs" in workflow, (
        f"{path.name}: expected a workflow with jobs"
    )
    # YAML 1.1 reads the key `on` as the boolean True.
    workflow["on"] = workflow.pop(True, workflow.get("on"))
    return workflow


def steps(workflow: dict) -> list[dict]:
    return [step for job in workflow["jobs"].values() for step in job.get("steps", [])]


def run_steps(workflow: dict) -> list[str]:
    return [step["run"].strip() for step in steps(workflow) if "run" in step]


def uses(workflow: dict, action: str) -> list[dict]:
    """The steps that use ``action`` (owner/name, any version)."""
    return [step for step in steps(workflow) if step.get("uses", "").split("@")[0] == action]


def binder_requirements() -> tuple[list[str], list[Requirement]]:
    """(extra index URLs, requirements) of binder/requirements.txt."""
    indexes, requirements = [], []
    for line in (BINDER / "requirements.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        if line.startswith("--extra-index-url"):
            indexes.append(line.split(None, 1)[1].strip())
        elif line.startswith("-"):
            pytest.fail(f"binder/requirements.txt: unexpected option line {line!r}")
        else:
            requirements.append(Requirement(line))
    return indexes, requirements


def normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def pinned_torch() -> str:
    pins = re.findall(r"^torch==(\S+)", CONSTRAINTS.read_text(), re.M)
    assert len(pins) == 1, f"expected one torch==VERSION line in constraints.txt, found {pins}"
    return pins[0]


def binder_python() -> str:
    """The Python version binder/runtime.txt asks repo2docker for, e.g. "3.11"."""
    runtime = (BINDER / "runtime.txt").read_text().strip()
    match = re.fullmatch(r"python-(\d+\.\d+)", runtime)
    assert match, f'binder/runtime.txt: expected "python-X.Y", found {runtime!r}'
    return match.group(1)


# --- the workflows run the README's commands ------------------------------------------------


def test_publish_workflow_builds_with_the_readme_command_and_deploys_to_pages():
    build, _ = readme_commands()
    workflow = load_workflow(PUBLISH)
    push = (workflow["on"] or {}).get("push") or {}
    assert push.get("branches") == ["main"], (
        f"the book is published on every push to main, not on {workflow['on']}"
    )
    # the README's build command, then the offline editions the README documents (make pdf, make
    # epub)
    assert run_steps(workflow) == [build, "make pdf epub"], (
        f"{PUBLISH.name} must run the README's build command {build!r}, then only `make pdf epub`"
    )
    assert "make pdf" in README.read_text() and "make epub" in README.read_text()
    permissions = workflow.get("permissions") or {}
    assert permissions.get("pages") == "write" and permissions.get("id-token") == "write", (
        f"deploy-pages needs pages: write and id-token: write, the workflow grants {permissions}"
    )
    assert (workflow.get("concurrency") or {}).get("group"), (
        "deployments to Pages need a concurrency group"
    )

    build_steps = workflow["jobs"]["build"]["steps"]
    order = [step.get("uses", "").split("@")[0] or step.get("run") for step in build_steps]
    for action in [
        "actions/checkout",
        "actions/setup-python",
        "actions/configure-pages",
        "actions/upload-pages-artifact",
    ]:
        assert action in order, f"the build job lacks {action}: {order}"
    assert (
        order.index("actions/setup-python")
        < order.index(build)
        < order.index("actions/upload-pages-artifact")
    )
    (upload,) = uses(workflow, "actions/upload-pages-artifact")
    assert upload["with"]["path"] == PAGES_ARTIFACT
    # The artifact is the folder the build command writes (the README says where).
    build_line = next(
        line for line in README.read_text().splitlines() if line.startswith(build + " ")
    )
    assert PAGES_ARTIFACT in build_line, (
        f"the README's {build!r} line does not say it builds {PAGES_ARTIFACT}"
    )

    (deploy,) = [
        job
        for job in workflow["jobs"].values()
        if any(s.get("uses", "").startswith("actions/deploy-pages@") for s in job.get("steps", []))
    ]
    assert deploy["needs"] == "build" and deploy["environment"]["name"] == "github-pages"


def test_test_workflow_runs_the_readme_test_command_on_pull_requests():
    _, test = readme_commands()
    workflow = load_workflow(TEST)
    assert "pull_request" in workflow["on"], f"{TEST.name} must run on pull requests"
    assert run_steps(workflow) == [test], (
        f"{TEST.name} must run exactly the README's test command {test!r}"
    )
    assert workflow.get("permissions") == {"contents": "read"}, (
        "a pull request's tests only read the repository"
    )


def test_ci_runs_the_readme_test_command():
    _, test = readme_commands()
    lines = [line.strip() for line in CI_RUN.read_text().splitlines()]
    commands = [line for line in lines if line and not line.startswith("#")]
    assert test in commands, (
        f".ci/run must run the README's test command {test!r}; it runs {commands}"
    )


@pytest.mark.parametrize("path", [PUBLISH, TEST], ids=lambda p: p.name)
def test_workflows_set_up_the_course_machine(path):
    workflow = load_workflow(path)
    for name, job in workflow["jobs"].items():
        assert job["runs-on"] == "ubuntu-latest", (
            f"{path.name}: job {name} runs on {job['runs-on']}"
        )
    (setup,) = uses(workflow, "actions/setup-python")
    setup = setup.get("with") or {}
    version = setup.get("python-version")
    # Unquoted, YAML reads 3.10 as the number 3.1.
    assert isinstance(version, str), (
        f"{path.name}: quote python-version, YAML read it as {version!r}"
    )
    assert version == binder_python(), (
        f"{path.name} uses Python {version}, binder/runtime.txt {binder_python()}"
    )
    assert (
        setup.get("cache") == "pip" and setup.get("cache-dependency-path") == "constraints.txt"
    ), f"{path.name}: expected pip's cache keyed on constraints.txt, found {setup}"
    # constraints.txt pins torch's version only; PyPI's build of it is the CUDA one.
    indexes, _ = binder_requirements()
    assert (workflow.get("env") or {}).get("PIP_EXTRA_INDEX_URL") in indexes, (
        f"{path.name}: PIP_EXTRA_INDEX_URL should be PyTorch's CPU index, as in "
        f"binder/requirements.txt {indexes}"
    )


# --- the Binder files -----------------------------------------------------------------------


def test_binder_requirements_pin_the_cpu_torch_of_constraints():
    indexes, requirements = binder_requirements()
    assert indexes == ["https://download.pytorch.org/whl/cpu"], (
        f"expected PyTorch's CPU index, found {indexes}"
    )
    (torch,) = [r for r in requirements if normalized(r.name) == "torch"]
    assert str(torch.specifier) == f"=={pinned_torch()}", (
        f"binder torch {torch.specifier}, constraints.txt {pinned_torch()}"
    )


def test_binder_requirements_list_every_runtime_dependency():
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    _, requirements = binder_requirements()
    listed = {normalized(r.name) for r in requirements}
    missing = sorted(
        normalized(Requirement(d).name)
        for d in declared
        if normalized(Requirement(d).name) not in listed
    )
    assert not missing, (
        f"binder/requirements.txt lacks tutorlib's dependencies {missing} (pyproject.toml lists "
        "them)"
    )


def test_binder_postbuild_is_executable():
    assert os.access(BINDER / "postBuild", os.X_OK), (
        "binder/postBuild must be executable (git mode 100755)"
    )


# --- fresh environments ---------------------------------------------------------------------


@dataclass
class Venv:
    root: Path

    @property
    def python(self) -> Path:
        return self.root / "bin" / "python"

    @property
    def site_packages(self) -> Path:
        return Path(
            sysconfig.get_path("purelib", vars={"base": str(self.root), "platbase": str(self.root)})
        )

    def env(self, **extra: str) -> dict[str, str]:
        """The environment of a shell with this venv activated, and nothing from ours."""
        env = {
            k: v
            for k, v in os.environ.items()
            if k not in {"PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP"}
        }
        env["VIRTUAL_ENV"] = str(self.root)
        env["PATH"] = f"{self.root / 'bin'}{os.pathsep}{env.get('PATH', '')}"
        env["PYTHONNOUSERSITE"] = "1"
        env["PIP_CONSTRAINT"] = str(
            CONSTRAINTS
        )  # also for the pip that postBuild and the install cell run
        env.update(extra)
        return env

    def run(
        self, *args: str | Path, cwd: Path, check: bool = True, **env: str
    ) -> subprocess.CompletedProcess:
        result = subprocess.run(
            [str(a) for a in args],
            cwd=cwd,
            env=self.env(**env),
            capture_output=True,
            text=True,
            timeout=900,
        )
        if check and result.returncode != 0:
            pytest.fail(
                f"{' '.join(map(str, args))} exited {result.returncode} in {self.root}:\n"
                f"{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
            )
        return result

    def pip_install(self, *args: str | Path) -> None:
        # --no-compile: bytecode is written on import anyway; compiling all of torch's files
        # up front would double the install time.
        self.run(
            self.python,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-compile",
            "-c",
            CONSTRAINTS,
            *PIP_NETWORK,
            *args,
            cwd=self.root,
        )


def make_venv(path: Path, *pip_args: str | Path) -> Venv:
    """A fresh virtualenv (no system site-packages) with ``pip install -c constraints.txt
    *pip_args``."""
    subprocess.run([sys.executable, "-m", "venv", str(path)], check=True, capture_output=True)
    venv = Venv(path)
    venv.pip_install(*pip_args)
    return venv


# Cells the runner adds to the chapter: one after the first code cell (the install cell) and
# one at the end, each printing one line of JSON about the kernel.
PROBE_TAG = "launch-probe"
PROBE_AFTER_INSTALL = """import importlib.util, json
print(json.dumps({"tutorlib_installed": importlib.util.find_spec("tutorlib") is not None}))"""
PROBE_AT_END = """import json, sys, torch, tutorlib
print(json.dumps({"prefix": sys.prefix, "tutorlib": tutorlib.__file__,
                  "torch": torch.__version__, "cuda": torch.version.cuda}))"""

# Executed by the venv's python: nbclient starts the venv's own kernel (ipykernel's "python3").
RUNNER = """
import json, sys
import nbformat
from nbclient import NotebookClient

notebook, cwd, report, probe_tag, after_install, at_end = sys.argv[1:7]
nb = nbformat.read(notebook, as_version=4)
first = next(i for i, cell in enumerate(nb.cells) if cell.cell_type == "code")
for index, source in [(len(nb.cells), at_end), (first + 1, after_install)]:
    nb.cells.insert(index, nbformat.v4.new_code_cell(source, metadata={"tags": [probe_tag]}))
NotebookClient(nb, kernel_name="python3", timeout=300, allow_errors=True,
               resources={"metadata": {"path": cwd}}).execute()
cells = [{"index": i, "probe": probe_tag in cell.metadata.get("tags", []),
          "source": cell.source[:200], "execution_count": cell.execution_count,
          "errors": [o.ename + ": " + o.evalue for o in cell.outputs if o.output_type == "error"],
          "stdout": "".join(o.text for o in cell.outputs
                            if o.output_type == "stream" and o.name == "stdout")}
         for i, cell in enumerate(nb.cells) if cell.cell_type == "code"]
with open(report, "w") as f:
    json.dump(cells, f)
"""


def run_notebook(venv: Venv, notebook: Path, cwd: Path, **env: str) -> tuple[dict, dict]:
    """Execute ``notebook`` in ``venv``'s kernel with its working directory ``cwd``; assert that
    every cell ran without error, and return what the two probes printed."""
    runner = venv.root / "run_notebook.py"
    runner.write_text(RUNNER)
    report = venv.root / f"{notebook.stem}.json"
    venv.run(
        venv.python,
        runner,
        notebook,
        cwd,
        report,
        PROBE_TAG,
        PROBE_AFTER_INSTALL,
        PROBE_AT_END,
        cwd=cwd,
        **env,
    )
    cells = json.loads(report.read_text())
    failed = [
        f"cell {c['index']}: {'; '.join(c['errors'])}\n{c['source']}" for c in cells if c["errors"]
    ]
    assert not failed, f"{notebook.name} failed in {venv.root}:\n" + "\n".join(failed)
    not_run = [c["index"] for c in cells if c["execution_count"] is None]
    assert not not_run, f"{notebook.name}: cells {not_run} did not run"
    chapter_cells = [c for c in cells if not c["probe"]]
    assert len(chapter_cells) == sum(
        c.cell_type == "code" for c in nbformat.read(notebook, as_version=4).cells
    )
    after_install, at_end = (
        json.loads(c["stdout"].strip().splitlines()[-1]) for c in cells if c["probe"]
    )
    return after_install, at_end


def checkout_copy(dst: Path) -> Path:
    """The checkout as a fresh clone has it (what .gitignore names left out). pip builds a
    local project inside its folder (build/, *.egg-info), so the Colab install gets a copy."""
    ignored = [
        line.strip().rstrip("/")
        for line in (ROOT / ".gitignore").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    shutil.copytree(ROOT, dst, ignore=shutil.ignore_patterns(".git", "build", *ignored))
    return dst


@pytest.fixture(scope="session")
def launch_tmp(tmp_path_factory) -> Path:
    # pytest keeps the last three runs' folders (about 2 GB each: two venvs with torch) for a
    # failure to be looked into, and removes older ones.
    return tmp_path_factory.mktemp("launch_envs")


@pytest.fixture(scope="session")
def binder_venv(launch_tmp) -> Venv:
    venv = make_venv(launch_tmp / "binder", "-r", BINDER / "requirements.txt", *JUPYTER)
    # As repo2docker runs it: from the repository root, the kernel environment first on PATH.
    venv.run(BINDER / "postBuild", cwd=ROOT)
    return venv


@pytest.fixture(scope="session")
def colab_venv(launch_tmp) -> Venv:
    return make_venv(launch_tmp / "colab", *COLAB_PREINSTALLED)


@pytest.mark.slow  # a fresh virtualenv with torch
@pytest.mark.parametrize("chapter", BINDER_CHAPTERS)
def test_binder_environment_runs_the_chapter(binder_venv, chapter):
    # The kernel starts in the notebook's folder, as Jupyter starts it on Binder.
    after_install, kernel = run_notebook(
        binder_venv, ROOT / "chapters" / chapter, cwd=ROOT / "chapters"
    )
    assert after_install["tutorlib_installed"]
    assert Path(kernel["prefix"]).resolve() == binder_venv.root.resolve(), (
        "the kernel is not the venv's python"
    )
    assert Path(kernel["tutorlib"]).resolve() == (ROOT / "tutorlib" / "__init__.py").resolve(), (
        f"tutorlib came from {kernel['tutorlib']}, not from the checkout (postBuild installs it "
        "editable)"
    )
    assert kernel["torch"].split("+")[0] == pinned_torch() and kernel["cuda"] is None, (
        f"expected the CPU build of torch {pinned_torch()}, got {kernel['torch']} (CUDA "
        f"{kernel['cuda']})"
    )


@pytest.mark.slow  # a fresh virtualenv with torch
def test_colab_first_cell_installs_tutorlib_from_TUTORLIB_SOURCE(colab_venv, launch_tmp):
    content = launch_tmp / "content"  # Colab's working folder: no checkout beside the notebook
    content.mkdir()
    source = checkout_copy(launch_tmp / "checkout")

    before = colab_venv.run(colab_venv.python, "-c", "import tutorlib", cwd=content, check=False)
    assert before.returncode != 0 and "No module named 'tutorlib'" in before.stderr, (
        f"tutorlib should be missing before the notebook runs: {before.returncode} "
        f"{before.stderr[-500:]}"
    )

    after_install, kernel = run_notebook(
        colab_venv, ROOT / "chapters" / COLAB_CHAPTER, cwd=content, TUTORLIB_SOURCE=str(source)
    )
    assert after_install["tutorlib_installed"], "the first code cell did not install tutorlib"
    assert Path(kernel["prefix"]).resolve() == colab_venv.root.resolve(), (
        "the kernel is not the venv's python"
    )
    assert Path(kernel["tutorlib"]).resolve().parent.parent == colab_venv.site_packages.resolve(), (
        kernel
    )
    assert kernel["cuda"] is None and kernel["torch"].split("+")[0] == pinned_torch(), kernel

    # Installed into the venv, and from TUTORLIB_SOURCE (pip records where it came from).
    after = colab_venv.run(
        colab_venv.python,
        "-c",
        "import importlib.metadata as m; "
        "print(m.distribution('tutorlib').read_text('direct_url.json'))",
        cwd=content,
    )
    assert json.loads(after.stdout)["url"] == source.resolve().as_uri(), after.stdout
