"""``xtensor.install_as_torch()``: ``import torch`` (and every ``torch.X`` path) gives xtensor's own modules.

A ``sys.meta_path`` finder answers every import of ``torch`` or ``torch.<path>`` with the module
``xtensor.<path>`` itself: nothing is copied or wrapped, so ``torch.nn is xtensor.nn``,
``torch.Tensor is xtensor.Tensor``, and ``sys.modules["torch.nn.functional"]`` is
``sys.modules["xtensor.nn.functional"]``. The loader uses the import system's "sys.modules replacement"
protocol (its ``exec_module`` puts the xtensor module under the torch name), so the xtensor module's own
``__spec__``, ``__name__`` and ``__file__`` stay as they are and pickles still name ``xtensor`` classes.

A ``torch.X`` that xtensor does not have (``torch._C``, ``torch._dynamo``, ...) fails at its import with one
``ModuleNotFoundError`` naming ``torch.X`` (its ``.name`` set, for the ``except ImportError`` probes libraries
use), never a stub: the finder raises it itself, because a finder that declined would let the path finder
look for ``X`` in xtensor's folder under the torch name, which could load a second copy of a module.

Versions: while installed, ``torch.__version__`` (that is, ``xtensor.__version__``) reads
``2.13.0+xtensor.<xtensor's version>``: the release of PyTorch whose API xtensor follows and is tested against
(the ``torch`` extra's pin), with a local label saying it is xtensor. Libraries gate features on it
(``version.parse(torch.__version__) >= version.parse("2.0")``), and xtensor has the 2.x API they would take.
The value (``xtensor.version.__version__``, which is ``torch.version.__version__``) compares with strings and
tuples by PEP 440's rules, as torch's ``TorchVersion`` does.
``importlib.metadata.version("torch")`` is left alone: it reports what pip installed (a real torch, or
``PackageNotFoundError``); faking a distribution would mislead tools that install or inspect packages.
"""
import importlib
import importlib.abc
import importlib.machinery
import sys

__all__ = ["install_as_torch", "TORCH_API_VERSION", "TorchVersion"]

TORCH_API_VERSION = "2.13.0"  # the PyTorch release xtensor's API follows (pyproject's ``torch`` extra pins it)


class TorchVersion(str):
    """A version string that also compares with version strings, tuples and ``packaging`` Versions by PEP 440's
    rules (``"2.13.0" > "2.2"``, ``>= (2, 0)``), as ``torch.torch_version.TorchVersion`` does (over the same
    ``packaging``); a comparison with something that is no version falls back to ``str``'s, as torch's."""

    __slots__ = ()

    def _compare(self, other, method):
        from packaging.version import InvalidVersion, Version

        try:
            if isinstance(other, tuple):
                other = ".".join(map(str, other))
            return getattr(Version(self), method)(other if isinstance(other, Version) else Version(other))
        except (InvalidVersion, TypeError):
            return getattr(super(), method)(other)

    __hash__ = str.__hash__


for _method in ["__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__"]:
    setattr(TorchVersion, _method, lambda self, other, method=_method: self._compare(other, method))


class _AliasLoader(importlib.abc.Loader):
    """Loads ``torch.<path>`` as the already imported ``xtensor.<path>`` (the sys.modules replacement protocol)."""

    def __init__(self, target):
        self.target = target

    def create_module(self, spec):
        return None  # a throwaway module, replaced in exec_module

    def exec_module(self, module):
        sys.modules[module.__name__] = self.target


class _TorchFinder(importlib.abc.MetaPathFinder):
    """Answers ``torch`` and ``torch.<path>`` with ``xtensor`` and ``xtensor.<path>``; see the module's docstring."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname != "torch" and not fullname.startswith("torch."):
            return None
        xtensor_name = "xtensor" + fullname[len("torch"):]
        try:
            module = importlib.import_module(xtensor_name)
        except ModuleNotFoundError as e:
            if e.name != xtensor_name:
                raise  # xtensor.<path> exists but needs something missing: that error is the informative one
            raise ModuleNotFoundError(
                f"No module named {fullname!r}: xtensor stands in for PyTorch here (xtensor run / "
                f"xtensor.install_as_torch()) and has no {fullname} ({xtensor_name} does not exist); "
                f"a program that needs it must run on PyTorch", name=fullname) from None
        spec = importlib.machinery.ModuleSpec(fullname, _AliasLoader(module), origin=getattr(module, "__file__", None),
                                              is_package=hasattr(module, "__path__"))
        if spec.submodule_search_locations is not None:
            spec.submodule_search_locations.extend(module.__path__)
        return spec


def install_as_torch():
    """Make ``import torch`` and every ``torch.X`` import give xtensor's modules in this process (idempotent).

    Call it before anything imports PyTorch: a real ``torch`` already imported cannot be taken back, and two
    libraries named torch in one process would mix tensors of both; that is a RuntimeError."""
    import xtensor

    real = [name for name, module in sys.modules.items()
            if (name == "torch" or name.startswith("torch.")) and module is not None
            and not getattr(module, "__name__", "").startswith("xtensor")]
    if real:
        raise RuntimeError(f"install_as_torch(): PyTorch itself is already imported in this process ({real[0]}); "
                           "call install_as_torch() before anything imports torch")
    if not any(isinstance(finder, _TorchFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, _TorchFinder())
    xtensor.__version__ = xtensor.version.__version__
    importlib.import_module("torch")
