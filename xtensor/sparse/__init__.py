"""``xtensor.sparse``: sparse COO tensors and the ``torch.sparse`` namespace (``mm``, ``addmm``, ``sum``, ``softmax``,
``log_softmax``, the legacy ``FloatTensor(indices, values, size)`` constructors). See ``_coo`` for the tensor type
and ``_products`` for the per-backend products."""
from .. import _dtypes
from .._tensor import Tensor
from ._coo import SparseTensor, coalesce, sparse_coo, sparse_coo_tensor, sparse_mask, to_dense, to_sparse
from ._products import addmm, matmul, mm as spmm, sparse_mm as mm
from ._reductions import log_softmax, softmax, sparse_sum as sum  # noqa: A001  (torch.sparse.sum)



def layout_aware(dense_fn, sparse_fn):
    """``dense_fn`` (a torch function of two tensors) that hands sparse operands to ``sparse_fn``: the layout
    dispatch of the products, whose dense signatures read strided shapes before the op table is reached."""
    def function(input, other, *, out=None):
        if isinstance(input, SparseTensor) or isinstance(other, SparseTensor):
            if out is not None:
                raise NotImplementedError(f"{dense_fn.__name__}(): out= with a sparse operand is not supported")
            return sparse_fn(input, other)
        return dense_fn(input, other) if out is None else dense_fn(input, other, out=out)
    function.__name__ = function.__qualname__ = dense_fn.__name__
    function.__doc__ = dense_fn.__doc__
    return function




def _tensor_to_sparse(self, sparse_dim=None, *, layout=None, blocksize=None, dense_dim=None):
    return to_sparse(self, sparse_dim, layout=layout)


def _install(cls):
    """Put the dense Tensor's conversions into this layout (``to_sparse``, ``sparse_mask``) on ``cls``."""
    cls.to_sparse, cls.sparse_mask = _tensor_to_sparse, sparse_mask


def _legacy_constructor(dtype):
    """``torch.sparse.FloatTensor(indices, values[, size])`` (the values kept as given, as PyTorch 2.13 keeps them)
    and ``torch.sparse.FloatTensor(*size)`` (an empty COO tensor of ``dtype``)."""
    def constructor(*args):
        if args and isinstance(args[0], Tensor):
            return sparse_coo_tensor(*args)
        size = tuple(args[0]) if len(args) == 1 and isinstance(args[0], (tuple, list)) else args
        from .._creation import zeros
        return sparse_coo_tensor(zeros((len(size), 0), dtype=_dtypes.int64), zeros((0,), dtype=dtype), size)
    return constructor


_LEGACY = {"FloatTensor": "float32", "DoubleTensor": "float64", "HalfTensor": "float16", "BFloat16Tensor": "bfloat16",
           "LongTensor": "int64", "IntTensor": "int32", "ShortTensor": "int16", "CharTensor": "int8",
           "ByteTensor": "uint8"}
globals().update({name: _legacy_constructor(_dtypes.by_name(dtype)) for name, dtype in _LEGACY.items()})

__all__ = ["layout_aware", "SparseTensor", "sparse_coo", "sparse_coo_tensor", "sparse_mask", "mm", "addmm", "sum",
           "softmax", "log_softmax", "spmm", "matmul", "coalesce", "to_dense", "to_sparse", *_LEGACY]
