"""The ``xtensor`` command.

``xtensor linreg`` is the main job: the autograd linear regression of the tutorials (seed 004,
section 3.4.4) written exactly as a PyTorch user writes it, on any backend. For backend authors:
``xtensor conformance`` runs the official array-API suite against a backend, ``xtensor gradcheck``
cross-checks every differentiable function's VJPs with jax (both live in ``xtensor.conformance``).
"""
import argparse
import sys
import time

__all__ = ["main", "linear_regression"]


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


def main(argv=None):
    parser = argparse.ArgumentParser(prog="xtensor", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    linreg = commands.add_parser("linreg", help="train the tutorials' autograd linear regression")
    linreg.add_argument("--backend", help="numpy (default), jax, or any array-API module name")
    linreg.add_argument("--steps", type=int, default=500)
    linreg.add_argument("--plot", default="linreg.png", help="PNG path for the fit and loss plot ('' to skip)")
    linreg.set_defaults(run=_cmd_linreg)
    from .conformance import gradcheck, runner

    for name, module, summary in (("conformance", runner, "run the array-API conformance suite on a backend"),
                                  ("gradcheck", gradcheck, "cross-check every VJP with jax.vjp on a backend")):
        sub = commands.add_parser(name, help=summary, description=module.__doc__,
                                  formatter_class=argparse.RawDescriptionHelpFormatter)
        module.add_arguments(sub)
        sub.set_defaults(run=module.run)
    args = parser.parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
