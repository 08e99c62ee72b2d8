"""Backend adapters, installed as ``xtensor.adapters`` and registered under the
``xtensor.backends`` entry-point group, the same way a third party adds a backend."""
