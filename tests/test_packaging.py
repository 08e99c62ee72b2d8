"""The installed package holds every subpackage: pyproject's explicit list names each folder of xtensor/; and the
package's core is layered: its modules import downward only."""
import ast
import pathlib
import tomllib

ROOT = pathlib.Path(__file__).resolve().parent.parent


def test_every_subpackage_is_listed_in_pyproject():
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(setuptools["packages"])
    mapped = setuptools["package-dir"]
    found = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "xtensor").rglob("__init__.py")
             if not p.parent.is_symlink()}
    found |= {name for name, folder in mapped.items() if (ROOT / folder / "__init__.py").exists()}
    assert found - listed == set(), "folders missing from [tool.setuptools] packages"
    assert listed - found == set(), "listed packages without a folder"


# the core's layers, lowest first: a module imports only modules of its own layer or of lower ones
_CORE_LAYERS = (
    ("_dtypes", "_backend", "_quiet", "_printing", "_modes", "_registry", "_layout"),
    ("_tensor",),
    ("_autocast", "_names", "_ns"),
    ("_autograd",),
    ("_dispatch",),
    ("_table",),
    ("_inplace", "_creation"),
    ("ops",),
)
_LAYER = {name: rank for rank, names in enumerate(_CORE_LAYERS) for name in names}
_SEAM = {"adapters"}  # the backends: _backend loads an adapter by name (adapters/generic.py needs _dtypes only)


def _imported_modules(path):
    """The ``xtensor`` modules ``path`` imports anywhere in it (inside functions too), as top-level names under
    ``xtensor`` (``_tensor``, ``ops``...); the package itself as ``""``."""
    package = path.relative_to(ROOT).with_suffix("").parts[:-1]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            base = list(package[:len(package) - node.level + 1]) if node.level else []
            target = base + (node.module.split(".") if node.module else [])
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.Import):
            target, names = None, [alias.name for alias in node.names]
        else:
            continue
        modules = [target] if target is not None else [name.split(".") for name in names]
        for parts in modules:
            if parts[:1] != ["xtensor"]:
                continue
            if len(parts) > 1:
                found.add(parts[1])
            else:  # ``from xtensor import _tensor`` names modules; ``from .. import stack`` the package
                found |= {name if (ROOT / "xtensor" / f"{name}.py").exists() or (ROOT / "xtensor" / name).is_dir()
                          else "" for name in names} if target is not None else {""}
    return found


def test_the_core_imports_only_its_own_layer_and_lower_ones():
    """No import circle through the Tensor, the tape, dispatch, the op table or the ops: what a core module needs
    from above is installed by the layer above, or taken from ``_registry`` by name."""
    upward = []
    for name, rank in _LAYER.items():
        folder = ROOT / "xtensor" / name
        for path in sorted(folder.rglob("*.py")) if folder.is_dir() else [folder.with_suffix(".py")]:
            for module in _imported_modules(path):
                if module != name and module not in _SEAM and _LAYER.get(module, len(_CORE_LAYERS)) > rank:
                    upward.append(f"{path.relative_to(ROOT)} imports xtensor.{module or '(the package)'}")
    assert upward == []
