"""``pad``: constant, reflect, replicate and circular padding of the last dimensions."""

from ...ops._composite import _fn


__all__ = ["pad"]


def pad(input, pad, mode="constant", value=None):
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > input.ndim:
        raise RuntimeError("Padding length should be less than or equal to two times the input dimension but got "
                           f"padding length {len(pad)} and input of dimension {input.ndim}")
    if mode not in ("constant", "reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if mode != "constant" and value:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    out = input
    for i in range(len(pad) // 2):
        dim = input.ndim - 1 - i
        left, right = int(pad[2 * i]), int(pad[2 * i + 1])
        out = _pad_dim(out, dim, left, right, mode, 0.0 if value is None else value)
    return out


def _pad_dim(x, dim, left, right, mode, value):
    n = x.shape[dim]
    if mode == "reflect" and (left >= n or right >= n):
        raise RuntimeError("Argument #4: Padding size should be less than the corresponding input dimension, but "
                           f"got: padding ({left}, {right}) at dimension {dim} of input {list(x.shape)}")
    if mode == "circular" and (left > n or right > n):
        raise RuntimeError("Padding value causes wrapping around more than once.")
    if mode == "replicate" and n == 0 and (left > 0 or right > 0):
        raise RuntimeError(f"Expected the padded dimension {dim} to have a non-zero size")
    if left < 0:
        x, n, left = x.narrow(dim, -left, n + left), n + left, 0
    if right < 0:
        x, n, right = x.narrow(dim, 0, n + right), n + right, 0
    if not left and not right:
        return x

    def block(size, at_start):
        if mode == "constant":
            shape = list(x.shape)
            shape[dim] = size
            return x.new_full(shape, value)
        if mode == "reflect":
            return (x.narrow(dim, 1, size) if at_start else x.narrow(dim, n - 1 - size, size)).flip(dim)
        if mode == "replicate":
            edge = x.narrow(dim, 0 if at_start else n - 1, 1)
            shape = list(x.shape)
            shape[dim] = size
            return edge.expand(shape)
        return x.narrow(dim, n - size, size) if at_start else x.narrow(dim, 0, size)  # circular
    parts = ([block(left, True)] if left else []) + [x] + ([block(right, False)] if right else [])
    return _fn("cat")(parts, dim)
