"""xtensor.hub (torch.hub) against PyTorch 2.13, without the network: the same cache folder, local hubconf
entry points, cached checkpoints; what would download raises NotImplementedError saying what to fetch."""
import numpy as np
import pytest

import xtensor as xt

torch = pytest.importorskip("torch")

HUBCONF = '''
dependencies = ["numpy"]


def double(x, times=2):
    """An entry point."""
    return times * x
'''


@pytest.fixture
def hub_dirs(tmp_path, monkeypatch):
    """Both libraries' hub caches under ``tmp_path`` (set_dir's global put back afterwards)."""
    monkeypatch.setattr(xt.hub, "_hub_dir", None)
    monkeypatch.setattr(torch.hub, "_hub_dir", None)
    xt.hub.set_dir(tmp_path / "hub")
    torch.hub.set_dir(str(tmp_path / "hub"))
    return tmp_path / "hub"


@pytest.mark.parametrize("environment", [{}, {"TORCH_HOME": "/data/torch"}, {"XDG_CACHE_HOME": "/cache"}])
def test_default_cache_folder_is_pytorchs(monkeypatch, environment):
    monkeypatch.setattr(xt.hub, "_hub_dir", None)
    monkeypatch.setattr(torch.hub, "_hub_dir", None)
    for variable in ("TORCH_HOME", "XDG_CACHE_HOME"):
        monkeypatch.delenv(variable, raising=False)
    for variable, value in environment.items():
        monkeypatch.setenv(variable, value)
    assert xt.hub.get_dir() == torch.hub.get_dir()


def test_local_hubconf_entry_point_runs_as_in_pytorch(tmp_path):
    (tmp_path / "hubconf.py").write_text(HUBCONF)
    assert xt.hub.load(str(tmp_path), "double", 21, source="local") == 42
    assert torch.hub.load(str(tmp_path), "double", 21, source="local") == 42
    assert xt.hub.load(str(tmp_path), "double", 2, times=5, source="local") == 10


@pytest.mark.parametrize("entry, hubconf", [("triple", HUBCONF), ("double", HUBCONF.replace('"numpy"', '"no_such_pkg"'))])
def test_missing_entry_point_or_dependency_raises_pytorchs_error(tmp_path, entry, hubconf):
    (tmp_path / "hubconf.py").write_text(hubconf)
    with pytest.raises(RuntimeError) as theirs:
        torch.hub.load(str(tmp_path), entry, 1, source="local")
    with pytest.raises(RuntimeError, match=str(theirs.value)):
        xt.hub.load(str(tmp_path), entry, 1, source="local")


def test_cached_checkpoint_loads_without_the_network(hub_dirs):
    (hub_dirs / "checkpoints").mkdir(parents=True)
    torch.save({"weight": torch.arange(6.0).reshape(2, 3)}, hub_dirs / "checkpoints" / "tiny-1234.pth")
    url = "https://example.invalid/models/tiny-1234.pth"
    ours, theirs = xt.hub.load_state_dict_from_url(url), torch.hub.load_state_dict_from_url(url)
    assert isinstance(ours["weight"], xt.Tensor)
    np.testing.assert_array_equal(ours["weight"].numpy(), theirs["weight"].numpy())


def test_uncached_checkpoint_says_where_to_put_the_file(hub_dirs):
    with pytest.raises(NotImplementedError, match=r"does not use the network; download the file to .*checkpoints.w\.pt"):
        xt.hub.load_state_dict_from_url("https://example.invalid/w.pt")


@pytest.mark.parametrize("call", [lambda hub: hub.load("pytorch/vision", "resnet18"),
                                  lambda hub: hub.list("pytorch/vision"),
                                  lambda hub: hub.help("pytorch/vision", "resnet18"),
                                  lambda hub: hub.download_url_to_file("https://example.invalid/w.pt", "w.pt")])
def test_what_needs_the_network_raises_naming_it(call):
    with pytest.raises(NotImplementedError, match=r"torch.hub \w+\(.*xtensor.hub does not use the network"):
        call(xt.hub)


def test_unknown_source_is_pytorchs_value_error(tmp_path):
    with pytest.raises(ValueError) as theirs:
        torch.hub.load(str(tmp_path), "double", source="gitlab")
    with pytest.raises(ValueError, match=str(theirs.value)):
        xt.hub.load(str(tmp_path), "double", source="gitlab")
