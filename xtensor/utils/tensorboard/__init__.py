"""``xtensor.utils.tensorboard`` (PyTorch's ``torch.utils.tensorboard``): ``SummaryWriter`` writes TensorBoard event
files, through the tensorboardX package (the library PyTorch's writer grew from, with the same methods), which
is given xtensor tensors as numpy arrays.

Where PyTorch's arguments differ from tensorboardX's, PyTorch's are taken: ``log_dir``; ``add_scalar``'s
``new_style``/``double_precision`` (PyTorch's tensor-style and float64 scalar records: both write the same
scalar as a plain record here, which TensorBoard shows the same); ``add_scalars``' run folders
(``<main_tag>_<key>``); ``add_hparams``' ``run_name``.
``add_graph`` traces a model with TorchScript, which xtensor does not have: it raises NotImplementedError,
as does ``add_hparams(hparam_domain_discrete=...)``, which tensorboardX cannot write.
"""
import os
import time

try:
    import tensorboardX
    from tensorboardX.summary import scalar
except ImportError as e:
    raise ImportError("torch.utils.tensorboard in xtensor writes through the tensorboardX package, which is not "
                      "installed: pip install tensorboardX (or xtensor[tensorboard])") from e

from ..._tensor import Tensor

__all__ = ["SummaryWriter"]


def _as_numpy(value):
    """``value`` with every xtensor tensor in it (in lists, tuples, dicts) as a numpy array."""
    if isinstance(value, Tensor):
        return value.detach().numpy(force=True)
    if isinstance(value, (list, tuple)):
        return type(value)(_as_numpy(v) for v in value)
    if isinstance(value, dict):
        return {k: _as_numpy(v) for k, v in value.items()}
    return value


def _given_numpy(method):
    def call(self, *args, **kwargs):
        return method(self, *_as_numpy(args), **_as_numpy(kwargs))
    call.__name__, call.__qualname__, call.__doc__ = method.__name__, f"SummaryWriter.{method.__name__}", method.__doc__
    return call


class SummaryWriter(tensorboardX.SummaryWriter):
    """Writes TensorBoard event files under ``log_dir`` (default ``runs/<date>_<host><comment>``, as PyTorch's)."""

    def __init__(self, log_dir=None, comment="", purge_step=None, max_queue=10, flush_secs=120, filename_suffix=""):
        super().__init__(log_dir, comment, purge_step, max_queue, flush_secs, filename_suffix)

    def add_scalar(self, tag, scalar_value, global_step=None, walltime=None, new_style=False, double_precision=False):
        super().add_scalar(tag, _as_numpy(scalar_value), global_step, walltime)

    def add_scalars(self, main_tag, tag_scalar_dict, global_step=None, walltime=None):
        """Each key's scalar in its own run, ``<log_dir>/<main_tag>_<key>``, plotted together under ``main_tag``
        (PyTorch's folder names; tensorboardX's own would be ``<main_tag>/<key>``)."""
        walltime = time.time() if walltime is None else walltime
        log_dir = self._get_file_writer().get_logdir()
        for tag, value in tag_scalar_dict.items():
            folder = os.path.join(log_dir, main_tag.replace("/", "_") + "_" + tag)
            if folder not in self.all_writers:
                self.all_writers[folder] = tensorboardX.FileWriter(folder, self._max_queue, self._flush_secs,
                                                                   self._filename_suffix)
            self.all_writers[folder].add_summary(scalar(main_tag, _as_numpy(value)), global_step, walltime)

    def add_hparams(self, hparam_dict, metric_dict, hparam_domain_discrete=None, run_name=None, global_step=None):
        if hparam_domain_discrete is not None:
            raise NotImplementedError("SummaryWriter.add_hparams(hparam_domain_discrete=...): tensorboardX, which "
                                      "xtensor writes through, has no discrete domains")
        super().add_hparams(_as_numpy(hparam_dict), _as_numpy(metric_dict), name=run_name, global_step=global_step)

    def add_graph(self, model, input_to_model=None, verbose=False, use_strict_trace=True):
        raise NotImplementedError("SummaryWriter.add_graph traces the model with TorchScript, which xtensor does not "
                                  "have; the other add_* methods write as PyTorch's")


for _name in ["add_histogram", "add_histogram_raw", "add_image", "add_images", "add_image_with_boxes",
              "add_video", "add_audio", "add_text", "add_embedding", "add_pr_curve", "add_pr_curve_raw", "add_mesh"]:
    setattr(SummaryWriter, _name, _given_numpy(getattr(tensorboardX.SummaryWriter, _name)))
