"""OpInfo records for the ops in ``xtensor/ops/indexing.py`` (see ``opinfo.py``)."""
