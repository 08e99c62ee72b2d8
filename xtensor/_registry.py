"""What the layers under the generated one call by name: the op table's entries (``TABLE``, written by
``_table.defop``) and the torch functions ``_variants`` generates from them (``FUNCTIONS``). Both are defined
here, low in the house, so the VJP namespaces (``_ns``) and the composites (``ops/``) read them without importing
the modules that fill them; both are complete once ``xtensor`` is imported.
"""
from types import MappingProxyType

__all__ = ["TABLE", "FUNCTIONS"]

ENTRIES = {}  # name -> ``_table.Entry``: written only by ``_table._register``
TABLE = MappingProxyType(ENTRIES)  # read-only: an entry is changed only by editing its ``defop`` call
FUNCTIONS = {}  # name -> the generated torch function (``xtensor.add``...): written only by ``_variants``
