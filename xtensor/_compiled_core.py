"""The optional compiled core: xtensor's hottest modules compiled by Cython from their unchanged ``.py`` files.

The ``.py`` files stay the source of truth and the fallback. ``pip install`` compiles them when it can (``setup.py``)
and records, next to the extension modules, the SHA-256 of each source it compiled. At import an extension module is
used only when its ``.py`` still has that hash: after an edit (an editable install, a ``git checkout``) the ``.py``
runs, with one warning, until the next ``pip install -e .``, so a stale build never shadows the code being read.
``XTENSOR_PURE_PYTHON=1`` runs every module from its ``.py`` (and, set while installing, builds nothing).

Standard library only: ``setup.py`` loads this file by path to know what to compile.
"""
import hashlib
import importlib.machinery
import importlib.util
import json
import os
import sys
import warnings

#: The modules compiled: the per-op path (dispatch, recording, the op entries) and the engine.
MODULES = ("xtensor._dispatch", "xtensor._autograd", "xtensor.autograd", "xtensor._variants", "xtensor._ns",
           "xtensor.ops.elementwise")
PURE_PYTHON_VARIABLE = "XTENSOR_PURE_PYTHON"
MANIFEST = "_compiled_core.json"  # in the package directory: {module: SHA-256 of the source it was compiled from}
PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


def pure_python_requested():
    """Whether ``XTENSOR_PURE_PYTHON`` asks for the pure-Python modules (set to anything but "", "0")."""
    return os.environ.get(PURE_PYTHON_VARIABLE, "") not in ("", "0")


def source_path(module, package_dir=PACKAGE_DIR):
    """The ``.py`` file of ``module`` (a package's ``__init__.py``) under the package directory ``package_dir``."""
    parts = module.split(".")[1:]
    base = os.path.join(package_dir, *parts)
    return os.path.join(base, "__init__.py") if os.path.isdir(base) else base + ".py"


def source_hash(path):
    """The SHA-256 of the file ``path`` (what the build records and the import compares)."""
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def _extension_path(source):
    """The extension module built from ``source`` for this interpreter, or None."""
    stem = source[:-len(".py")]
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        if os.path.isfile(stem + suffix):
            return stem + suffix
    return None


class CoreFinder:
    """Finds ``modules`` under ``package_dir``: each one's extension module when it was built from the current
    source (``manifest``: {module: SHA-256}), else its ``.py``; ``state`` says which ran and why."""

    def __init__(self, manifest, package_dir=PACKAGE_DIR, modules=MODULES):
        self.manifest, self.package_dir, self.modules = manifest, package_dir, modules
        self.state = {}

    def find_spec(self, fullname, path=None, target=None):
        if fullname not in self.modules:
            return None
        source = source_path(fullname, self.package_dir)
        extension = _extension_path(source)
        if pure_python_requested():
            self.state[fullname] = f"python ({PURE_PYTHON_VARIABLE} is set)"
        elif extension is None:
            self.state[fullname] = "python (not compiled)"
        elif self.manifest.get(fullname) != source_hash(source):
            self.state[fullname] = "python (stale build: the .py changed since it was compiled)"
            warnings.warn(f"xtensor: {os.path.basename(extension)} was compiled from an older {source}; running the "
                          f".py instead (`pip install -e .` recompiles it)", RuntimeWarning, stacklevel=2)
        else:
            self.state[fullname] = "compiled"
            return importlib.util.spec_from_file_location(
                fullname, extension, loader=importlib.machinery.ExtensionFileLoader(fullname, extension))
        return importlib.util.spec_from_file_location(fullname, source)


def read_manifest(package_dir=PACKAGE_DIR):
    """{module: SHA-256 of the source its extension module was compiled from}; {} when nothing was compiled."""
    try:
        with open(os.path.join(package_dir, MANIFEST)) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


def _installed_finder():
    return next((finder for finder in sys.meta_path if isinstance(finder, CoreFinder)), None)


def install():
    """Puts the core's finder first on ``sys.meta_path`` (once); called by ``xtensor/__init__.py`` before any import."""
    if _installed_finder() is None:
        sys.meta_path.insert(0, CoreFinder(read_manifest()))


def compiled_core():
    """{module: how it runs}: "compiled", or "python (why)" -- not compiled, stale, or ``XTENSOR_PURE_PYTHON``."""
    state = _installed_finder().state
    return {name: state.get(name, "not imported yet") for name in MODULES}
