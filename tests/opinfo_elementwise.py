"""OpInfo records for the ops in ``xtensor/ops/elementwise.py`` (see ``opinfo.py``)."""
