"""Compiles xtensor's optional core (``xtensor/_compiled_core.py`` names the modules) with Cython from the unchanged
``.py`` files; everything else is in pyproject.toml.

Each module is optional: without Cython, a C compiler or the Python headers, or with ``XTENSOR_PURE_PYTHON=1`` set,
the install goes on and those modules run as Python. The generated C goes to ``build/``; the extension modules go
next to the ``.py`` files (in the source tree under ``pip install -e``) with ``_compiled_core.json``, the hashes of
the sources they were compiled from, which the import checks.
"""
import importlib.util
import json
import os
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext


def _load_core():
    """``xtensor/_compiled_core.py`` loaded by path: importing the package would need its dependencies."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "xtensor", "_compiled_core.py")
    spec = importlib.util.spec_from_file_location("_xtensor_compiled_core", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


core = _load_core()


def _extension_name(module):
    """A package's ``__init__`` compiles as ``package.__init__``: its extension module lands in the package's folder."""
    source = core.source_path(module, "xtensor")
    return module + ".__init__" if os.path.basename(source) == "__init__.py" else module


def _extensions():
    """The core modules as optional Cython extensions, each with the hash of the source it is compiled from."""
    if core.pure_python_requested():
        return [], {}
    try:
        from Cython.Build import cythonize
    except ImportError:
        print("xtensor: Cython is not installed; the core runs as pure Python")
        return [], {}
    sources = {name: core.source_path(name, "xtensor") for name in core.MODULES}
    hashes = {name: core.source_hash(path) for name, path in sources.items()}
    # -O2 without debug information: a third of the default -O3 -g's compile time, the same speed measured
    flags = [] if sys.platform == "win32" else ["-O2", "-g0"]
    extensions = [Extension(_extension_name(name), [path], optional=True, extra_compile_args=flags)
                  for name, path in sources.items()]
    compiled = cythonize(extensions, build_dir="build/cython", quiet=True,
                         compiler_directives={"language_level": 3, "binding": True})
    return compiled, hashes


class build_optional_ext(build_ext):
    """build_ext on every core, recording the hashes of the modules that were built."""

    def finalize_options(self):
        super().finalize_options()
        if self.parallel is None:
            self.parallel = os.cpu_count() or 1

    def build_extension(self, ext):
        try:
            super().build_extension(ext)
        except Exception as error:  # no compiler or headers, a compile error: distutils' own filter misses some
            self.warn(f"xtensor: {ext.name} is not compiled ({error}); it runs as Python")
            self.failed.append(ext.name)

    def build_extensions(self):
        """Builds each extension; those that failed are dropped, so nothing copies or lists them afterwards."""
        self.failed = []
        super().build_extensions()
        self.extensions = [ext for ext in self.extensions if ext.name not in self.failed]

    def run(self):
        super().run()
        built = {ext.name for ext in self.extensions}
        manifest = self.get_outputs()[-1]
        os.makedirs(os.path.dirname(manifest), exist_ok=True)
        with open(manifest, "w") as f:
            json.dump({module: HASHES[module] for module in HASHES if _extension_name(module) in built}, f,
                      indent=1, sort_keys=True)

    def _output_path(self, module):
        """Where ``module``'s extension module lands: the source tree when built in place (``pip install -e``)."""
        name = _extension_name(module)
        if self.inplace:  # set by build_ext under editable_mode
            return os.path.abspath(self.get_ext_fullpath(name))
        return os.path.join(self.build_lib, self.get_ext_filename(name))

    def get_outputs(self):
        manifest = os.path.join(os.path.dirname(self._output_path(core.MODULES[0])), core.MANIFEST)
        return super().get_outputs() + [manifest]


EXTENSIONS, HASHES = _extensions()
setup(ext_modules=EXTENSIONS, cmdclass={"build_ext": build_optional_ext})
