"""pyproject.toml is the one list of dependencies, and the package ships its data files."""

import ast
import re
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
NAME = PYPROJECT["project"]["name"]


def canon(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def requirement(spec: str) -> tuple[str, set[str]]:
    """``"pkg[a,b]>=1; marker"`` -> ``("pkg", {"a", "b"})``."""
    m = re.match(r"\s*([A-Za-z0-9_.-]+)\s*(?:\[([^\]]*)\])?", spec)
    return canon(m[1]), {e.strip() for e in (m[2] or "").split(",") if e.strip()}


def declared(extras=()) -> set[str]:
    """Distributions that ``pip install .[extras]`` asks for, self-references resolved."""
    project = PYPROJECT["project"]
    names, seen, todo = set(), set(), [None, *extras]  # None: the core dependencies
    while todo:
        extra = todo.pop()
        if extra in seen:
            continue
        seen.add(extra)
        for spec in project["dependencies"] if extra is None else project["optional-dependencies"][extra]:
            name, more = requirement(spec)
            if name == canon(NAME):
                todo += more
            else:
                names.add(name)
    return names


def environment_yml() -> tuple[list[str], list[str]]:
    """(conda items, pip items) of environment.yml; a tiny reader for this one flat layout."""
    conda, pip, pip_indent, section = [], [], None, None
    for line in (ROOT / "environment.yml").read_text().splitlines():
        if re.match(r"^\w+:", line):
            section = line.split(":")[0]
        m = re.match(r"^(\s*)-\s+(.+?)\s*$", line)
        if not m or section != "dependencies":
            continue
        indent, item = len(m[1]), m[2]
        if item == "pip:":
            pip_indent = indent
        elif pip_indent is not None and indent > pip_indent:
            pip.append(item)
        else:
            conda.append(item)
    return conda, pip


def test_environment_yml_installs_what_pyproject_declares():
    conda, pip = environment_yml()
    python = next(c for c in conda if c.startswith("python"))
    floor = re.search(r">=\s*([\d.]+)", PYPROJECT["project"]["requires-python"])[1]
    version = tuple(map(int, python.split("=")[-1].split(".")))
    assert version >= tuple(map(int, floor.split("."))), "environment.yml python below requires-python"
    assert set(conda) <= {python, "pip"}, "conda packages belong in pyproject.toml"

    installed = set()
    for item in pip:
        m = re.fullmatch(r"(?:-e\s+)?\.(?:\[([^\]]*)\])?", item)
        installed |= declared(requirement(f"x[{m[1] or ''}]")[1]) if m else {requirement(item)[0]}
    assert installed == declared(("test",))


def test_makefile_installs_the_test_extras():
    assert re.search(r"pip install .*-e '?\.\[test\]'?", (ROOT / "Makefile").read_text())


def test_no_second_dependency_list():
    others = ["setup.py", "setup.cfg", "Pipfile", "requirements.txt", "requirements-dev.txt"]
    assert [f for f in others if (ROOT / f).exists()] == []


def test_data_files_are_package_data():
    """Every non-Python file inside the package is matched by a package-data glob of its package."""
    globs = PYPROJECT["tool"]["setuptools"]["package-data"]
    missing = []
    for path in sorted((ROOT / NAME).rglob("*")):
        if not path.is_file() or path.suffix in {".py", ".pyc"} or "__pycache__" in path.parts:
            continue
        package = next(p for p in path.parents if (p / "__init__.py").is_file())
        dotted = ".".join(package.relative_to(ROOT).parts)
        rel = path.relative_to(package)
        if not any(rel.match(g) for g in globs.get(dotted, [])):
            missing.append(f"{path.relative_to(ROOT)} (declare it under package-data {dotted!r})")
    assert missing == []


def test_cuda_folder_belongs_to_a_package():
    cuda = ROOT / NAME / "gpu" / "cuda"
    if any(cuda.glob("*.cu")):
        assert (cuda.parent / "__init__.py").is_file(), "mce_kit/gpu must be a package to ship cuda/*.cu"


def test_imports_are_declared():
    """Third-party modules imported by the package and the tests are declared somewhere in pyproject."""
    everything = declared(tuple(PYPROJECT["project"]["optional-dependencies"]))
    dists = packages_distributions()
    undeclared = set()
    for path in [*(ROOT / NAME).rglob("*.py"), *(ROOT / "tests").rglob("*.py")]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                tops = [a.name.split(".")[0] for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                tops = [node.module.split(".")[0]]
            else:
                continue
            for top in tops:
                local = (path.parent / f"{top}.py").exists() or (path.parent / top).is_dir()
                if top in sys.stdlib_module_names or top in {NAME, "tests"} or local:
                    continue
                names = {canon(d) for d in dists.get(top, [top])}
                if not names & everything:
                    undeclared.add(f"{top} ({path.relative_to(ROOT)})")
    assert sorted(undeclared) == [], "\n".join(sorted(undeclared))
