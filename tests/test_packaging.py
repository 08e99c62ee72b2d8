"""The installed package holds every subpackage: pyproject's explicit list names each folder of xtensor/."""
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
