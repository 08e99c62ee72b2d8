"""The op table's entries, one module per category (see ``xtensor._table``)."""
from . import elementwise, reductions, linalg, shapes, indexing, nn, special, spectral  # noqa: F401  (each registers its entries)
