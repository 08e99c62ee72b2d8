"""OpInfo records for the ops in ``xtensor/ops/reductions.py`` (see ``opinfo.py``)."""
