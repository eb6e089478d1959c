"""One map of the package: each name has one home, the old short modules only point at it.

``tutorlib.translator`` keeps the stable API learners type (``translate``,
``load_pretrained``, ...), with no warning; ``tutorlib.gpt`` is the GPT's face for learners
(every public name of its package, checkpoints and loop), stable too. Every other name of the
old short modules (``tutorlib.translator``, ``.training``, ``.data``,
``.phrasebook``, ``.config``, ``.static``, ``.modern_gpt``) still resolves, to the
very object of its home (a copy would drift, and a monkeypatch of one would not
reach the other), with a ``DeprecationWarning`` that names the home. Nothing of the
course imports through them: an AST scan of the chapters, exercises, tests,
benchmarks, tools and tutorlib itself finds every import at its name's home.
"""

import ast
import importlib
import json
import warnings
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# the stable public API (tutorlib/__init__.py, README.md, CONTRIBUTING.md): no warning, ever
STABLE = {
    "tutorlib.translator": {
        "translate",
        "translate_sentences",
        "translate_with_alignment",
        "load_pretrained",
    },
    # the GPT's face for learners: its package's face cannot name the checkpoints and the
    # loop, which sit above the model kinds (tutorlib/gpt.py says why)
    "tutorlib.gpt": set(importlib.import_module("tutorlib.gpt").__all__),
    "tutorlib.__main__": {"main"},  # python -m tutorlib: an entry point
}
# stable modules whose names the scan follows through an alias (gpt.GPT in a chapter)
FACES = ["tutorlib.gpt"]
# the short modules: every name but the stable ones is deprecated (their table: _MOVED)
SHORT = [
    "tutorlib.translator",
    "tutorlib.training",
    "tutorlib.data",
    "tutorlib.phrasebook",
    "tutorlib.config",
    "tutorlib.static",
    "tutorlib.modern_gpt",
]
DEPRECATED_MODULES = set(SHORT) - set(STABLE)  # nothing left in them but the old names


def _moved(old):
    return importlib.import_module(old)._MOVED


# --- (a) every old name still resolves, to its home's object, with a warning naming the home ----

ONE_PER_MODULE = [
    ("tutorlib.translator", "greedy_decode", "tutorlib.translation.decoding"),
    ("tutorlib.training", "translation_loss", "tutorlib.translation.model"),
    ("tutorlib.data", "tokenize", "tutorlib.translation.data"),
    ("tutorlib.phrasebook", "phrasebook", "tutorlib.translation.phrasebook"),
    ("tutorlib.config", "PRESETS", "tutorlib.translation.config"),
    ("tutorlib.static", "Control", "tutorlib.explorers.static"),
    ("tutorlib.modern_gpt", "group_kv_heads", "tutorlib.translation.gpt.modern"),
]


def test_every_short_module_has_an_example_here():
    assert sorted(old for old, _, _ in ONE_PER_MODULE) == sorted(SHORT)


@pytest.mark.parametrize(("old", "name", "home"), ONE_PER_MODULE)
def test_an_old_name_warns_and_names_its_home(old, name, home):
    module = importlib.import_module(old)
    message = f"{old}.{name} moved to {home}.{name}; import it from there"
    with pytest.warns(DeprecationWarning, match=message) as caught:
        value = getattr(module, name)
    assert value is getattr(importlib.import_module(home), name)
    assert caught[0].filename == __file__, "the warning should point at the line that asked"


@pytest.mark.parametrize("old", SHORT)
def test_every_old_name_resolves_to_its_home(old):
    module = importlib.import_module(old)
    moved = _moved(old)
    assert moved, f"{old} has no table of moved names"
    for name, home in moved.items():
        assert not name.startswith("_"), f"{old}.{name}: private names are not kept"
        assert name not in STABLE.get(old, ()), f"{old}.{name} is stable, not moved"
        assert name not in vars(module), f"{old}.{name} is a real import: it would not warn"
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            value = getattr(module, name)
        assert value is getattr(importlib.import_module(home), name), f"{old}.{name}"
        assert [w.category for w in caught] == [DeprecationWarning], f"{old}.{name}"
        assert f"moved to {home}.{name}" in str(caught[0].message)
        assert _is_home(home, name), f"{old}.{name}: {home} is not the home of {name}"
    with pytest.raises(AttributeError, match="has no attribute 'no_such_name'"):
        module.no_such_name  # noqa: B018


def test_from_import_of_an_old_name_warns_at_the_importing_line():
    with pytest.warns(DeprecationWarning, match="tutorlib.data.Vocab moved to") as caught:
        from tutorlib.data import Vocab  # noqa: F401
    assert caught[0].filename == __file__


# --- (b) the stable API: real names, no warning ------------------------------------------------


@pytest.mark.parametrize("old", sorted(STABLE))
def test_the_stable_api_resolves_without_a_warning(old):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        module = importlib.import_module(old)
        for name in STABLE[old]:
            assert name in vars(module), f"{old}.{name} should be a real import"
            getattr(module, name)
    if hasattr(module, "__all__"):
        assert set(module.__all__) == STABLE[old]


def test_the_stable_api_is_the_homes_object():
    from tutorlib import gpt, translator
    from tutorlib.translation import checkpoints, shipped
    from tutorlib.translation.gpt import checkpoints as gpt_checkpoints

    assert translator.translate is shipped.translate
    assert translator.translate_sentences is shipped.translate_sentences
    assert translator.translate_with_alignment is shipped.translate_with_alignment
    assert translator.load_pretrained is checkpoints.load_pretrained
    assert gpt.translate is shipped.gpt_translate
    from tutorlib.translation import gpt as package
    from tutorlib.translation.gpt import training as gpt_training

    for name in package.__all__:
        assert getattr(gpt, name) is getattr(package, name), name
    assert gpt.PRETRAINED_GPT_COMMAND == gpt_checkpoints.PRETRAINED_GPT_COMMAND
    assert gpt.train_gpt is gpt_training.train_gpt and gpt.load_gpt is gpt_checkpoints.load_gpt
    assert gpt.load_pretrained is gpt_checkpoints.load_pretrained


def test_the_shipped_model_still_loads_from_its_old_path():
    """translator.pt stores plain data (weights_only), no class path: moving classes cannot
    hurt it."""
    from tutorlib.translation.config import PRETRAINED_PATH
    from tutorlib.translation.model import Translator
    from tutorlib.translator import load_pretrained

    assert PRETRAINED_PATH.parts[-3:] == ("tutorlib", "pretrained", "translator.pt")
    assert PRETRAINED_PATH.is_file()
    model, src_vocab, tgt_vocab = load_pretrained(device="cpu")
    assert type(model) is Translator and model.src_vocab is src_vocab and len(tgt_vocab) > 4


# --- (c) nothing of the course imports through the old modules; one home per name --------------


def _is_home(module_name, name):
    """``name`` is at home in ``module_name``: the module defines it at its top level, or is a
    package that names it in its ``__all__`` (its public face), or ``name`` is its submodule."""
    module = importlib.import_module(module_name)
    if name in STABLE.get(module_name, ()):
        return True
    if hasattr(module, "__path__"):
        if name in getattr(module, "__all__", ()):
            return True
        try:
            importlib.import_module(f"{module_name}.{name}")
            return True
        except ModuleNotFoundError:
            pass
    return name in _top_level_definitions(module_name)


_DEFINED: dict[str, set] = {}


def _top_level_definitions(module_name):
    if module_name not in _DEFINED:
        module = importlib.import_module(module_name)
        tree = ast.parse(Path(module.__file__).read_text(encoding="utf-8"))
        names = set()
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    names |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
        _DEFINED[module_name] = names
    return _DEFINED[module_name]


def _code_cells(path):
    """A notebook's code cells (index, code), their IPython magics and shell lines blanked."""
    for i, cell in enumerate(json.loads(path.read_text(encoding="utf-8"))["cells"]):
        if cell["cell_type"] == "code":
            lines = "".join(cell["source"]).splitlines()
            yield i, "\n".join("" if s.lstrip().startswith(("%", "!")) else s for s in lines)


def _sources():
    """(file, where, package, code) for every place the course's code imports tutorlib from."""
    shims = {f"tutorlib/{m.split('.')[1]}.py" for m in SHORT + FACES} | {"tutorlib/_moved.py"}
    notebooks = sorted((ROOT / "chapters").glob("*.ipynb"))
    for path in notebooks + sorted((ROOT / "exercises").rglob("*.ipynb")):
        for i, code in _code_cells(path):
            yield path, f"{path.relative_to(ROOT)} cell {i}", None, code
    files = [p for p in (ROOT / "tests").glob("*.py") if p.name != Path(__file__).name]
    for folder in ("benchmarks", "tools", "tutorlib"):
        files += (ROOT / folder).rglob("*.py")
    for path in sorted(files):
        where = str(path.relative_to(ROOT))
        if where in shims:
            continue
        package = None
        if where.startswith("tutorlib/"):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            package = ".".join(parts if parts[-1] == "__init__" else parts[:-1])
            package = package.removesuffix(".__init__")
        yield path, where, package, path.read_text(encoding="utf-8")


def _imports(code, package, aliases=None):
    """(module, name or None, line) of every import of tutorlib in ``code``; attribute reads of
    an imported short module count as imports of the name read. ``aliases`` (a name bound to a
    short module -> that module) carries over from one cell of a notebook to the next."""
    try:
        tree = ast.parse(code)
    except SyntaxError:  # an exercise's unfinished answer cell
        return
    aliases = {} if aliases is None else aliases
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([module] if module else []))
            if not module.startswith("tutorlib"):
                continue
            for alias in node.names:
                full = f"{module}.{alias.name}"
                if full in SHORT + FACES or full == "tutorlib.__main__":
                    yield full, None, node.lineno
                    aliases[alias.asname or alias.name] = full
                else:
                    yield module, alias.name, node.lineno
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("tutorlib"):
                    yield alias.name, None, node.lineno
                    if alias.name in SHORT + FACES and alias.asname:
                        aliases[alias.asname] = alias.name
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            dotted, value = [node.attr], node.value
            while isinstance(value, ast.Attribute):
                dotted.insert(0, value.attr)
                value = value.value
            if isinstance(value, ast.Name):
                dotted.insert(0, value.id)
                head = aliases.get(dotted[0], dotted[0])
                for n in range(len(dotted) - 1, 0, -1):
                    module = ".".join([head, *dotted[1:n]])
                    if module in SHORT + FACES:
                        yield module, dotted[n], node.lineno
                        break


def _problems():
    problems, homes, aliases = [], {}, {}
    for path, where, package, code in _sources():
        course = where.startswith(("chapters", "exercises"))
        for module, name, line in _imports(code, package, aliases.setdefault(path, {})):
            at = f"{where}, line {line}"
            if name is None:
                if module in DEPRECATED_MODULES:
                    problems.append(f"{at}: imports the deprecated module {module}")
                continue
            if module in DEPRECATED_MODULES or (module in SHORT and name not in STABLE[module]):
                problems.append(f"{at}: {module}.{name} is deprecated; import it from its home")
                continue
            if (
                module in SHORT + FACES and not course
            ):  # the stable API is the learners'; code uses homes
                problems.append(f"{at}: import {name} from its home, not from {module}")
                continue
            if module == "tutorlib.__main__" and name not in STABLE[module]:
                problems.append(f"{at}: {module}.{name}: import it from tutorlib.translation.cli")
                continue
            try:
                at_home = _is_home(module, name)
            except ModuleNotFoundError:
                continue
            if not at_home:
                problems.append(f"{at}: {module} is not the home of {name}")
            if course:  # by the object, not the name: two translate functions are two names
                value = getattr(importlib.import_module(module), name, None)
                homes.setdefault((name, id(value)), set()).add(module)
    for (name, _), modules in homes.items():
        if len(modules) > 1:
            problems.append(f"the chapters and exercises import {name} from {sorted(modules)}")
    return problems


def test_the_course_imports_every_name_from_its_home():
    problems = _problems()
    assert not problems, "\n".join(problems)


def test_a_modules_all_names_only_what_it_defines():
    """A module's ``__all__`` is its own names: a re-export there would be a second home (a
    package's ``__init__`` is its public face and may gather its modules' names)."""
    import pkgutil

    import tutorlib

    wrong = []
    for info in pkgutil.walk_packages(tutorlib.__path__, "tutorlib."):
        if info.ispkg or info.name in SHORT + FACES:
            continue
        if info.name == "tutorlib.__main__":
            continue
        module = importlib.import_module(info.name)
        defined = _top_level_definitions(info.name)
        wrong += [f"{info.name}.{n}" for n in getattr(module, "__all__", ()) if n not in defined]
    assert not wrong, f"__all__ names what another module defines: {wrong}"


def test_the_scan_sees_a_deprecated_import():
    """The scan above is not vacuous: each kind of wrong import is found."""
    wrong = (
        "import tutorlib.data\n"
        "from tutorlib.training import train\n"
        "from tutorlib.translator import greedy_decode, translate\n"
        "from tutorlib import gpt\n"
        "gpt.GPT, gpt.translate\n"
    )
    found = list(_imports(wrong, None))
    assert ("tutorlib.data", None, 1) in found
    assert ("tutorlib.training", "train", 2) in found
    assert ("tutorlib.translator", "greedy_decode", 3) in found
    assert ("tutorlib.gpt", "GPT", 5) in found
    assert _is_home("tutorlib.translation.training", "train")
    assert not _is_home("tutorlib.translation.training", "translation_loss")  # it imports it
    assert _is_home("tutorlib.translation.gpt", "GPT")  # the GPT's package: its public face
