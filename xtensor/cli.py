"""The ``xtensor`` command.

``xtensor demo`` is the main job: a digit classifier (an MLP, or ``--model cnn`` a small convnet) trained
on scikit-learn's bundled 8x8 digits with ``nn``, ``optim`` and ``DataLoader`` written exactly as a PyTorch
user writes them, on any backend. ``xtensor linreg`` is the tutorials' autograd linear regression (seed
004, section 3.4.4). For backend authors: ``xtensor conformance`` runs the official array-API suite
against a backend, ``xtensor gradcheck`` cross-checks every differentiable function's VJPs with jax
(both live in ``xtensor.conformance``). ``xtensor run SCRIPT [ARGS]`` runs a PyTorch program unchanged, xtensor standing
in for ``torch`` (``xtensor.install_as_torch``). User errors (an unknown backend, a missing library, bad
arguments) print one line and exit with status 2.
"""
import argparse
import sys
import time

__all__ = ["main", "linear_regression", "digits_classifier", "DEMO_DEFAULTS"]

DEMO_DEFAULTS = {"mlp": {"epochs": 20, "lr": 3e-3}, "cnn": {"epochs": 10, "lr": 3e-3}}


def _digits_model(nn, model):
    if model == "mlp":
        return nn.Sequential(nn.Flatten(), nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 64), nn.ReLU(),
                             nn.Linear(64, 10))
    return nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),   # 16 x 4 x 4
                         nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(),                    # 32 x 4 x 4
                         nn.Flatten(), nn.Linear(512, 10))


def digits_classifier(torch, model="mlp", epochs=None, lr=None, batch_size=32, seed=0, on_batch=None,
                      on_epoch=None, wrap_step=None):
    """Train on 80% of scikit-learn's 8x8 digits and test on the held-out 20%; returns (net, history).

    ``torch`` is ``xtensor`` or PyTorch itself: the body is a PyTorch training loop. ``history`` holds one
    dict per epoch (loss, train and test accuracy); ``on_batch(loss, batches_per_epoch)`` and
    ``on_epoch(record)`` report progress. ``wrap_step`` (``torch.compile``, or ``xtensor.distributed``'s
    ``data_parallel`` over a mesh) wraps the training step; the learning rate is then a tensor, as PyTorch
    advises for compiled optimizers, so the scheduler's new value each epoch is data, not a recompilation."""
    from sklearn.datasets import load_digits

    nn, data = torch.nn, torch.utils.data
    epochs, lr = epochs or DEMO_DEFAULTS[model]["epochs"], lr or DEMO_DEFAULTS[model]["lr"]
    torch.manual_seed(seed)
    images, labels = load_digits(return_X_y=True)
    x = torch.tensor(images / 16.0, dtype=torch.float32).view(-1, 1, 8, 8)
    y = torch.tensor(labels)
    train_set, test_set = data.random_split(data.TensorDataset(x, y), [0.8, 0.2],
                                            generator=torch.Generator().manual_seed(seed))
    train_loader = data.DataLoader(train_set, batch_size=batch_size, shuffle=True)
    test_loader = data.DataLoader(test_set, batch_size=256)

    net = _digits_model(nn, model)
    loss_fn = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(net.parameters(), lr=torch.tensor(lr) if wrap_step else lr)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=epochs)

    def accuracy(loader):
        net.eval()
        correct = 0
        with torch.no_grad():
            for inputs, targets in loader:
                correct += (net(inputs).argmax(dim=1) == targets).sum().item()
        return correct / len(loader.dataset)

    def train_step(inputs, targets):
        optimizer.zero_grad()
        outputs = net(inputs)
        loss = loss_fn(outputs, targets)
        loss.backward()
        optimizer.step()
        return loss, (outputs.argmax(dim=1) == targets).sum()

    step = wrap_step(train_step) if wrap_step else train_step
    history = []
    for epoch in range(1, epochs + 1):
        net.train()
        total_loss, correct = 0.0, 0
        for inputs, targets in train_loader:
            loss, batch_correct = step(inputs, targets)
            total_loss += loss.item() * len(targets)
            correct += batch_correct.item()
            if on_batch:
                on_batch(loss.item(), len(train_loader))
        scheduler.step()
        record = {"epoch": epoch, "loss": total_loss / len(train_set), "train_acc": correct / len(train_set),
                  "test_acc": accuracy(test_loader)}
        history.append(record)
        if on_epoch:
            on_epoch(record)
    return net, history


def linear_regression(torch, steps=500, lr=0.005, batch_size=32, seed=1000):
    """Fit y = 2x + 3 (+ noise) with manual SGD over autograd; returns (w, b, losses)."""
    torch.manual_seed(seed)

    def get_fake_data(batch_size=8):
        x = torch.rand(batch_size, 1) * 5
        y = x * 2 + 3 + torch.randn(batch_size, 1)
        return x, y

    w = torch.rand(1, 1, requires_grad=True)
    b = torch.zeros(1, 1, requires_grad=True)
    losses = []
    for _ in range(steps):
        x, y = get_fake_data(batch_size=batch_size)
        y_pred = x.mm(w) + b.expand_as(y)
        loss = (0.5 * (y_pred - y) ** 2).sum()
        losses.append(loss.item())
        loss.backward()
        w.data.sub_(lr * w.grad.data)
        b.data.sub_(lr * b.grad.data)
        w.grad.data.zero_()
        b.grad.data.zero_()
    return w, b, losses


def _plot(torch, w, b, losses, path):
    try:
        import matplotlib
    except ImportError:
        return None
    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    fig, (fit, curve) = plt.subplots(1, 2, figsize=(10, 4))
    torch.manual_seed(0)
    x = torch.rand(64, 1) * 5
    y = x * 2 + 3 + torch.randn(64, 1)
    grid = torch.arange(0, 6).float().view(-1, 1)
    fit.scatter(x.numpy().ravel(), y.numpy().ravel(), s=10, label="data: y = 2x + 3 + noise")
    fit.plot(grid.numpy().ravel(), (grid.mm(w.data) + b.data.expand_as(grid)).numpy().ravel(), "r",
             label=f"fit: y = {w.item():.3f}x + {b.item():.3f}")
    fit.set(xlim=(0, 5), ylim=(0, 13), title="linear regression with xtensor autograd")
    fit.legend()
    curve.plot(losses)
    curve.set(ylim=(5, 50), xlabel="step", ylabel="loss (sum over batch)", title="training loss")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path


def _cmd_linreg(args):
    import xtensor

    backend = args.backend or xtensor.get_default_backend().name
    with xtensor.use_backend(backend):
        start = time.perf_counter()
        w, b, losses = linear_regression(xtensor, steps=args.steps)
        elapsed = time.perf_counter() - start
        print(f"backend: {w.backend}")
        print(f"w: {w.item():.6f}  b: {b.item():.6f}   (data: y = 2x + 3 + noise)")
        print(f"final loss: {losses[-1]:.4f}  steps: {args.steps}  time: {elapsed:.3f} s")
        if args.plot:
            saved = _plot(xtensor, w, b, losses, args.plot)
            print(f"plot: {saved}" if saved else "plot: skipped (pip install matplotlib to draw it)")
    return 0


class _Reporter:
    """Per-batch progress and per-epoch lines: a rich progress bar when rich is installed, plain lines otherwise."""

    def __init__(self, epochs):
        self.epochs = epochs
        self.epoch_times = []  # seconds each epoch took (the first includes loading the data and compiling)
        self._last = time.perf_counter()
        try:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
        except ImportError:
            self.progress = None
            return
        self.progress = Progress(TextColumn("epoch {task.fields[epoch]:>2}/" + str(epochs)), BarColumn(),
                                 MofNCompleteColumn(), TextColumn("loss {task.fields[loss]:.4f}"),
                                 TimeElapsedColumn())
        self.task = self.progress.add_task("train", total=None, epoch=1, loss=float("nan"))

    def __enter__(self):
        if self.progress:
            self.progress.start()
        return self

    def __exit__(self, *exc):
        if self.progress:
            self.progress.stop()

    def batch(self, loss, batches):
        if self.progress:
            self.progress.update(self.task, total=batches, advance=1, loss=loss)

    def epoch_done(self, record):
        now = time.perf_counter()
        self.epoch_times.append(now - self._last)
        self._last = now
        line = (f"epoch {record['epoch']:>2}/{self.epochs}  loss {record['loss']:.4f}  "
                f"train accuracy {record['train_acc']:.4f}  test accuracy {record['test_acc']:.4f}")
        if not self.progress:
            print(line, flush=True)
            return
        self.progress.console.print(line)
        if record["epoch"] < self.epochs:
            self.progress.reset(self.task, epoch=record["epoch"] + 1, loss=float("nan"))


def _plot_history(history, title, path):
    try:
        import matplotlib
    except ImportError:
        return None
    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    epochs = [r["epoch"] for r in history]
    fig, (loss_ax, acc_ax) = plt.subplots(1, 2, figsize=(10, 4))
    loss_ax.plot(epochs, [r["loss"] for r in history], marker="o")
    loss_ax.set(xlabel="epoch", ylabel="cross-entropy (train)", title=f"{title}: training loss")
    acc_ax.plot(epochs, [r["train_acc"] for r in history], marker="o", label="train")
    acc_ax.plot(epochs, [r["test_acc"] for r in history], marker="o", label="held-out test")
    acc_ax.set(xlabel="epoch", ylabel="accuracy", ylim=(0, 1.01), title=f"{title}: accuracy")
    acc_ax.legend()
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path


def _cmd_demo(args):
    import xtensor

    try:
        import sklearn  # noqa: F401
    except ImportError:
        raise _UserError("the demo needs scikit-learn (its bundled digits data): pip install -e '.[demo]'") from None
    epochs = args.epochs or DEMO_DEFAULTS[args.model]["epochs"]
    with xtensor.use_backend(args.backend or xtensor.get_default_backend().name):
        backend = xtensor.get_default_backend().name
        wrap_step, splits, how = _demo_step(args, backend)
        print(f"backend: {backend}   model: {args.model}   data: scikit-learn's 8x8 digits, 80% train / 20% test")
        if how:
            print(f"step: {how}")
        start = time.perf_counter()
        with _Reporter(epochs) as report:
            net, history = digits_classifier(xtensor, args.model, epochs=epochs, lr=args.lr,
                                             batch_size=args.batch_size, seed=args.seed, on_batch=report.batch,
                                             on_epoch=report.epoch_done, wrap_step=wrap_step)
        elapsed = time.perf_counter() - start
        parameters = sum(p.numel() for p in net.parameters())
        for size, split in (splits or {}).items():
            print(f"batch {size} split over {len(split)} devices: {split}" if sum(split) == size else
                  f"batch {size} does not divide by {len(split)} devices: replicated, each computes all of it "
                  f"(data_parallel's rule)")
        print(f"test accuracy: {history[-1]['test_acc']:.4f}  (the held-out 20%; {parameters:,} parameters)")
        later = report.epoch_times[1:]
        per_epoch = f"; epoch 1 {report.epoch_times[0]:.2f} s, then {sum(later) / len(later):.2f} s per epoch" \
            if later else ""
        print(f"backend: {backend}  epochs: {epochs}  time: {elapsed:.1f} s{per_epoch}")
        if args.save:
            xtensor.save(net.state_dict(), args.save)
            print(f"weights: {args.save}  (xtensor.save; torch.load(..., weights_only=True) reads it too)")
        if args.plot:
            saved = _plot_history(history, f"digits {args.model} on {backend}", args.plot)
            print(f"plot: {saved}" if saved else "plot: skipped (pip install matplotlib to draw it)")
    return 0


def _demo_step(args, backend):
    """How ``--compile``/``--devices`` wrap the demo's training step: (``wrap_step`` for ``digits_classifier``
    or None, the batch sizes met and each one's split over the devices (filled as it trains), a line saying so)."""
    import xtensor

    if args.devices is None:
        if not args.compile:
            return None, None, None
        how = "compiled (xtensor.compile: one XLA program per batch shape)" if backend == "jax" else \
            f"eager (xtensor.compile compiles on jax only; on {backend} the step runs eagerly, with the same results)"
        return xtensor.compile, None, how
    if backend != "jax":
        raise _UserError(f"--devices trains data-parallel over jax devices, but the backend is {backend}: "
                         "add --backend jax")
    import jax

    from .distributed import data_parallel, init_device_mesh

    devices = jax.devices()
    platform = devices[0].platform
    if args.devices > len(devices):
        hint = f"; simulate more on a CPU with XLA_FLAGS=--xla_force_host_platform_device_count={args.devices}" \
            if platform == "cpu" else ""
        raise _UserError(f"--devices {args.devices}: jax has {len(devices)} {platform} device(s){hint}")
    mesh = init_device_mesh({"gpu": "cuda"}.get(platform, platform), (args.devices,))
    splits = {}

    def wrap_step(step):
        parallel = data_parallel(step, mesh)

        def data_parallel_step(inputs, targets):
            result = parallel(inputs, targets)
            if len(targets) not in splits:  # batch_split reads the shards: once per batch size
                splits[len(targets)] = parallel.batch_split
            return result
        return data_parallel_step
    return wrap_step, splits, f"data-parallel over {args.devices} {platform} devices (xtensor.distributed." \
                              "data_parallel: compiled, the batch split over the devices, the weights replicated)"


def _cmd_run(args):
    """Run a PyTorch program as ``python SCRIPT ARGS`` (or ``python -m MODULE ARGS``) would, with ``import torch``
    giving xtensor: the program runs as ``__main__`` with its own argv, its folder first on sys.path."""
    import os
    import runpy

    import xtensor
    from ._torch_alias import install_as_torch

    if args.backend:
        xtensor.set_default_backend(args.backend)
    install_as_torch()
    if args.module:
        sys.argv = [args.target, *args.args]  # run_module puts the module's file in argv[0], as python -m does
        runpy.run_module(args.target, run_name="__main__", alter_sys=True)
        return 0
    if not os.path.isfile(args.target):
        raise _UserError(f"can't open file {args.target!r}: no such file")
    sys.argv = [args.target, *args.args]
    sys.path[0] = os.path.dirname(os.path.realpath(args.target))  # python's rule for a script's sys.path[0]
    runpy.run_path(args.target, run_name="__main__")
    return 0


class _UserError(Exception):
    """A mistake in how the command was called: printed as one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, no usage block
        self.exit(2, f"{self.prog}: error: {message}\n")


def _positive_int(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text}")
    return value


def _check_backend(name):
    """Resolve ``--backend`` up front, so a typo or a missing library is a one-line error."""
    import xtensor
    try:
        xtensor.get_backend(name)
    except (ValueError, ImportError) as e:
        raise _UserError(f"backend {name!r} is not usable: {e}") from None


def main(argv=None):
    parser = _Parser(prog="xtensor", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    demo = commands.add_parser("demo", help="train a digit classifier (MLP or convnet) with nn, optim and DataLoader",
                               description="Train an MLP (or --model cnn, a small convnet) on scikit-learn's bundled "
                                           "8x8 digits with a PyTorch training loop; print the held-out test accuracy, "
                                           "the backend and the time; save the weights and a plot of the curves.")
    demo.add_argument("--model", choices=["mlp", "cnn"], default="mlp", help="mlp (default) or cnn")
    demo.add_argument("--backend", help="numpy (default), jax, or any array-API module name")
    demo.add_argument("--epochs", type=_positive_int,
                      help=f"default {DEMO_DEFAULTS['mlp']['epochs']} (mlp), {DEMO_DEFAULTS['cnn']['epochs']} (cnn)")
    demo.add_argument("--batch-size", type=_positive_int, default=32)
    demo.add_argument("--lr", type=float, help="Adam's learning rate, annealed by a cosine schedule (default 3e-3)")
    demo.add_argument("--seed", type=int, default=0, help="seeds the split, the initial weights and the shuffling")
    demo.add_argument("--compile", action="store_true",
                      help="compile the training step with xtensor.compile (jax: one XLA program per batch shape; "
                           "numpy and array-API backends run the step eagerly, with the same results)")
    demo.add_argument("--devices", type=_positive_int, metavar="N",
                      help="jax only: train data-parallel over N devices (xtensor.distributed.data_parallel, "
                           "compiled): each batch split evenly over them, one that does not divide (the last of "
                           "an epoch) replicated on each; on a CPU, XLA_FLAGS="
                           "--xla_force_host_platform_device_count=N simulates N devices")
    demo.add_argument("--save", help="where to save the weights (default digits_<model>.pt; '' to skip)")
    demo.add_argument("--plot", help="PNG of the loss and accuracy curves (default digits_<model>.png; '' to skip)")
    demo.set_defaults(run=_cmd_demo)
    linreg = commands.add_parser("linreg", help="train the tutorials' autograd linear regression",
                                 description="Fit y = 2x + 3 + noise with autograd and manual SGD, as the tutorials "
                                             "do; print w, b, the backend and the time; plot the fit.")
    linreg.add_argument("--backend", help="numpy (default), jax, or any array-API module name")
    linreg.add_argument("--steps", type=_positive_int, default=500)
    linreg.add_argument("--plot", default="linreg.png", help="PNG path for the fit and loss plot ('' to skip)")
    linreg.set_defaults(run=_cmd_linreg)
    run = commands.add_parser("run", help="run a PyTorch program unchanged, xtensor standing in for torch",
                              description="Run SCRIPT as python would (as __main__, with ARGS as its sys.argv[1:]), "
                                          "`import torch` and every torch.X import giving xtensor's modules; a "
                                          "torch.X that xtensor lacks stops the program with an ImportError naming it.")
    run.add_argument("--backend", help="numpy (default), jax, or any array-API module name (or XTENSOR_BACKEND)")
    run.add_argument("-m", dest="module", action="store_true", help="SCRIPT is a module name, run as python -m runs one")
    run.add_argument("target", metavar="SCRIPT", help="the program's .py file (or, with -m, its module name)")
    run.add_argument("args", nargs=argparse.REMAINDER, metavar="ARGS", help="the program's own arguments")
    run.set_defaults(run=_cmd_run)
    from .conformance import gradcheck, runner

    for name, module, summary in (("conformance", runner, "run the array-API conformance suite on a backend"),
                                  ("gradcheck", gradcheck, "cross-check every VJP with jax.vjp on a backend")):
        sub = commands.add_parser(name, help=summary, description=module.__doc__,
                                  formatter_class=argparse.RawDescriptionHelpFormatter)
        module.add_arguments(sub)
        sub.set_defaults(run=module.run)
    args = parser.parse_args(argv)
    if args.command == "demo":
        args.save = f"digits_{args.model}.pt" if args.save is None else args.save
        args.plot = f"digits_{args.model}.png" if args.plot is None else args.plot
    try:
        if getattr(args, "backend", None):
            _check_backend(args.backend)
        return args.run(args)
    except _UserError as e:
        parser.exit(2, f"xtensor {args.command}: error: {e}\n")


if __name__ == "__main__":
    sys.exit(main())
