"""Record PyTorch's outcome of every seed cell into torch_outcomes.json (for machines without torch).

Run from the repository root: ``python tests/tutorials/record_torch.py``.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import torch  # noqa: E402

import xtensor  # noqa: E402
from tutorials import replay  # noqa: E402
from tutorials.test_tutorials import CELLS  # noqa: E402

if __name__ == "__main__":
    recorded = {seed: {k: o.as_json() for k, o in replay.torch_outcomes(torch, xtensor, cells).items()}
                for seed, cells in CELLS.items()}
    with open(os.path.join(os.path.dirname(__file__), "torch_outcomes.json"), "w", encoding="utf-8") as f:
        json.dump(recorded, f, ensure_ascii=False, indent=0, sort_keys=True)
