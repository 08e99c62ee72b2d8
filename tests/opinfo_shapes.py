"""OpInfo records for the ops in ``xtensor/ops/shapes.py`` (see ``opinfo.py``)."""
