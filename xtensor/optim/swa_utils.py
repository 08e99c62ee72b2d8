"""Stochastic weight averaging and exponential moving averages of a model (PyTorch's ``torch.optim.swa_utils``):
``AveragedModel``, ``SWALR``, ``update_bn`` and the averaging functions."""
import itertools
import math
import warnings
from copy import deepcopy

from .._creation import tensor
from .. import _dtypes
from ..autograd import grad_mode
from ..nn.modules.batchnorm import _BatchNorm
from ..nn.modules.module import Module
from .lr_scheduler import LRScheduler, _per_group

__all__ = ["AveragedModel", "update_bn", "SWALR", "get_ema_multi_avg_fn", "get_swa_multi_avg_fn", "get_ema_avg_fn",
           "get_swa_avg_fn"]


def _check_decay(decay):
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in [0,1] range.")


def get_ema_multi_avg_fn(decay=0.999):
    """``multi_avg_fn`` of an exponential moving average: ``ema = lerp(ema, current, 1 - decay)`` in place."""
    _check_decay(decay)

    def ema_update(ema_param_list, current_param_list, _):
        with grad_mode.no_grad():
            for ema, current in zip(ema_param_list, current_param_list):
                if ema.is_floating_point() or ema.is_complex():
                    ema.lerp_(current, 1 - decay)
                else:
                    ema.copy_(ema * decay + current * (1 - decay))
    return ema_update


def get_swa_multi_avg_fn():
    """``multi_avg_fn`` of the running mean (SWA): ``avg += (current - avg) / (n + 1)`` in place."""
    def swa_update(averaged_param_list, current_param_list, num_averaged):
        with grad_mode.no_grad():
            for averaged, current in zip(averaged_param_list, current_param_list):
                if averaged.is_floating_point() or averaged.is_complex():
                    averaged.lerp_(current, float(1 / (num_averaged + 1)))
                else:
                    averaged.add_((current - averaged) / (num_averaged + 1))
    return swa_update


def get_ema_avg_fn(decay=0.999):
    """``avg_fn`` of an exponential moving average: returns ``decay * ema + (1 - decay) * current``."""
    _check_decay(decay)

    def ema_update(ema_param, current_param, num_averaged):
        with grad_mode.no_grad():
            return decay * ema_param + (1 - decay) * current_param
    return ema_update


def get_swa_avg_fn():
    """``avg_fn`` of the running mean: returns ``avg + (current - avg) / (n + 1)``."""
    def swa_update(averaged_param, current_param, num_averaged):
        with grad_mode.no_grad():
            return averaged_param + (current_param - averaged_param) / (num_averaged + 1)
    return swa_update


class AveragedModel(Module):
    """A copy of ``model`` whose parameters (and buffers, with ``use_buffers``) are averaged over the models
    given to ``update_parameters``: the running mean by default (SWA), or ``avg_fn``/``multi_avg_fn`` (e.g.
    ``get_ema_multi_avg_fn()``). ``n_averaged`` counts the updates; the first one copies."""

    def __init__(self, model, device=None, avg_fn=None, multi_avg_fn=None, use_buffers=False):
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", tensor(0, dtype=_dtypes.int64, device=device))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)

    def update_parameters(self, model):
        """Fold ``model``'s current parameters into the average."""
        ours = itertools.chain(self.module.parameters(), self.module.buffers()) if self.use_buffers \
            else self.parameters()
        theirs = itertools.chain(model.parameters(), model.buffers()) if self.use_buffers else model.parameters()
        averaged, current = [], []
        first = bool(self.n_averaged == 0)
        for p_averaged, p_model in zip(ours, theirs):
            p_model = p_model.detach().to(p_averaged.device)
            averaged.append(p_averaged.detach())
            current.append(p_model)
            if first:
                p_averaged.detach().copy_(p_model)
        if not first:
            if self.avg_fn is None:
                (self.multi_avg_fn or get_swa_multi_avg_fn())(averaged, current, self.n_averaged)
            else:
                for p_averaged, p_model in zip(averaged, current):
                    p_averaged.copy_(self.avg_fn(p_averaged, p_model, self.n_averaged))
        if not self.use_buffers:  # the buffers follow the latest model
            for b_swa, b_model in zip(self.module.buffers(), model.buffers()):
                b_swa.detach().copy_(b_model.detach().to(b_swa.device))
        self.n_averaged += 1


def update_bn(loader, model, device=None):
    """Recompute the BatchNorm running statistics of ``model`` (an averaged model's) with one pass over
    ``loader`` (batches, or tuples/lists whose first item is the batch), as a cumulative average."""
    momenta = {}
    for module in model.modules():
        if isinstance(module, _BatchNorm):
            module.reset_running_stats()
            momenta[module] = module.momentum
    if not momenta:
        return
    was_training = model.training
    model.train()
    for module in momenta:
        module.momentum = None
    with grad_mode.no_grad():
        for batch in loader:
            if isinstance(batch, (list, tuple)):
                batch = batch[0]
            if device is not None:
                batch = batch.to(device)
            model(batch)
    for module, momentum in momenta.items():
        module.momentum = momentum
    model.train(was_training)


class SWALR(LRScheduler):
    """Anneal each group's learning rate to ``swa_lr`` over ``anneal_epochs`` epochs (cosine or linear), then
    hold it there."""

    def __init__(self, optimizer, swa_lr, anneal_epochs=10, anneal_strategy="cos", last_epoch=-1):
        for value, group in zip(_per_group("swa_lr", optimizer, swa_lr), optimizer.param_groups):
            group["swa_lr"] = value
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}")
        self._set_anneal_func(anneal_strategy)
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _linear_anneal(t):
        return t

    @staticmethod
    def _cosine_anneal(t):
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr, swa_lr, alpha):
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def get_lr(self):
        if not self._get_lr_called_within_step:
            warnings.warn("To get the last learning rate computed by the scheduler, please use `get_last_lr()`.",
                          UserWarning, stacklevel=2)
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        prev_alpha = self.anneal_func(max(0, min(1, (step - 1) / max(1, self.anneal_epochs))))
        prev_lrs = [self._get_initial_lr(group["lr"], group["swa_lr"], prev_alpha)
                    for group in self.optimizer.param_groups]
        alpha = self.anneal_func(max(0, min(1, step / max(1, self.anneal_epochs))))
        return [group["swa_lr"] * alpha + lr * (1 - alpha) for group, lr in zip(self.optimizer.param_groups, prev_lrs)]

    def _set_anneal_func(self, anneal_strategy):
        self._anneal_strategy = anneal_strategy
        self.anneal_func = self._cosine_anneal if anneal_strategy == "cos" else self._linear_anneal

    def state_dict(self):
        return {key: value for key, value in self.__dict__.items() if key not in ("optimizer", "anneal_func")}

    def load_state_dict(self, state_dict):
        self.__dict__.update(state_dict)
        self._set_anneal_func(self._anneal_strategy)
