"""Conformance of xtensor: the official array-API suite runner (``python -m conformance``, ``xtensor
conformance``) with per-backend xfail/skip lists and recorded results, and the gradient cross-check
against ``jax.vjp`` (``xtensor gradcheck``).

Installed as ``xtensor.conformance`` (mapped in pyproject.toml); importable as ``conformance`` from
a checkout. The suite itself is fetched separately, never committed.
"""
