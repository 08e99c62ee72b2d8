"""``xtensor.hub`` (PyTorch's ``torch.hub``), without the network.

What works as in PyTorch: ``get_dir``/``set_dir`` (the same cache, ``$TORCH_HOME/hub``, default
``~/.cache/torch/hub``, so files PyTorch downloaded are found), ``load(path, model, source="local")`` (a local
checkout with a ``hubconf.py``), and ``load_state_dict_from_url`` for a file already in the cache's
``checkpoints`` folder (read with ``xtensor.load``). What needs the network -- code from GitHub
(``load``/``list``/``help`` with ``source="github"``) or a file not yet cached -- raises NotImplementedError
saying what to fetch and where to put it: xtensor never downloads code or weights itself.
"""
import importlib.util
import os
import sys
from urllib.parse import urlparse

__all__ = ["download_url_to_file", "get_dir", "help", "list", "load", "load_state_dict_from_url", "set_dir"]

_hub_dir = None


def get_dir():
    """The hub cache folder: ``set_dir``'s, else ``$TORCH_HOME/hub`` (``$XDG_CACHE_HOME/torch``, ``~/.cache/torch``)."""
    if _hub_dir is not None:
        return _hub_dir
    cache = os.getenv("XDG_CACHE_HOME", os.path.join("~", ".cache"))
    return os.path.join(os.path.expanduser(os.getenv("TORCH_HOME", os.path.join(cache, "torch"))), "hub")


def set_dir(d):
    """Use ``d`` as the hub cache folder."""
    global _hub_dir
    _hub_dir = os.path.expanduser(os.fspath(d))


def _no_network(what, instead):
    return NotImplementedError(f"torch.hub {what}: xtensor.hub does not use the network; {instead}")


def load(repo_or_dir, model, *args, source="github", trust_repo=None, force_reload=False, verbose=True,
         skip_validation=False, **kwargs):
    """``model(*args, **kwargs)`` from the ``hubconf.py`` of the local folder ``repo_or_dir``
    (``source="local"``); GitHub repositories are not fetched."""
    if source not in ("github", "local"):
        raise ValueError(f'Unknown source: "{source}". Allowed values: "github" | "local".')
    if source == "github":
        raise _no_network(f"load({repo_or_dir!r}) from GitHub", "clone the repository and call "
                          f"hub.load(<its folder>, {model!r}, source='local')")
    return _entry(_hubconf(repo_or_dir), model)(*args, **kwargs)


def list(github, force_reload=False, skip_validation=False, trust_repo=None, verbose=True):  # noqa: A001
    """PyTorch's listing of a GitHub repository's entry points: it needs the network."""
    raise _no_network(f"list({github!r})", "read the hubconf.py of a local clone")


def help(github, model, force_reload=False, skip_validation=False, trust_repo=None):  # noqa: A001
    """PyTorch's docstring of a GitHub entry point: it needs the network."""
    raise _no_network(f"help({github!r}, {model!r})", "read the hubconf.py of a local clone")


def download_url_to_file(url, dst, hash_prefix=None, progress=True):
    """PyTorch's download helper: it needs the network."""
    raise _no_network(f"download_url_to_file({url!r})", f"download it to {dst} yourself")


def load_state_dict_from_url(url, model_dir=None, map_location=None, progress=True, check_hash=False,
                             file_name=None, weights_only=False):
    """The checkpoint ``url`` names, read from the hub cache (``<get_dir()>/checkpoints/<file name>``, where
    PyTorch keeps it) with ``xtensor.load``; a file not cached yet is not downloaded."""
    from .serialization import load as load_file

    model_dir = os.path.join(get_dir(), "checkpoints") if model_dir is None else model_dir
    cached = os.path.join(model_dir, file_name or os.path.basename(urlparse(url).path))
    if not os.path.exists(cached):
        raise _no_network(f"load_state_dict_from_url({url!r})", f"download the file to {cached} (PyTorch's cache "
                          "path: a run of the same program on PyTorch puts it there) and run again")
    return load_file(cached, map_location=map_location, weights_only=weights_only)


def _hubconf(folder):
    """Import ``folder/hubconf.py`` with ``folder`` on ``sys.path`` (its own imports resolve there), checking
    its ``dependencies`` list as PyTorch does."""
    path = os.path.join(folder, "hubconf.py")
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{path} not found: hub.load(..., source='local') needs a folder with a hubconf.py")
    sys.path.insert(0, folder)
    try:
        spec = importlib.util.spec_from_file_location("hubconf", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(folder)
    missing = [name for name in getattr(module, "dependencies", []) if importlib.util.find_spec(name) is None]
    if missing:
        raise RuntimeError(f"Missing dependencies: {', '.join(missing)}")
    return module


def _entry(module, model):
    if not isinstance(model, str):
        raise ValueError("Invalid input: model should be a string of function name")
    entry = getattr(module, model, None)
    if entry is None or not callable(entry):
        raise RuntimeError(f"Cannot find callable {model} in hubconf")
    return entry
