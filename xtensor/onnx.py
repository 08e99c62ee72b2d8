"""``xtensor.onnx``: importable, as PyTorch's ``torch.onnx``, so scripts that import it run; xtensor has no ONNX
exporter, so ``export`` refuses and names the way that works (export from PyTorch with the same weights)."""

__all__ = ["export", "is_in_onnx_export"]


def export(model, args=(), f=None, *unused_args, **unused_kwargs):
    raise NotImplementedError(
        "xtensor.onnx.export: xtensor has no ONNX exporter. Save the weights with "
        "xtensor.save(model.state_dict(), path), load them into the same model built with PyTorch "
        "(torch.load + load_state_dict) and call torch.onnx.export there.")


def is_in_onnx_export():
    """False: no ONNX export ever runs (model code branches on this, as with PyTorch outside an export)."""
    return False
