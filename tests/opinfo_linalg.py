"""OpInfo records for the ops in ``xtensor/ops/linalg.py`` (see ``opinfo.py``)."""
