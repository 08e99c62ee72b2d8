"""``xtensor.sparse``: sparse COO tensors and the ``torch.sparse`` namespace (``mm``, ``addmm``, ``sum``, ``softmax``,
``log_softmax``). See ``_coo`` for the tensor type and ``_products`` for the per-backend products."""
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


__all__ = ["layout_aware", "SparseTensor", "sparse_coo", "sparse_coo_tensor", "sparse_mask", "mm", "addmm", "sum", "softmax", "log_softmax",
           "spmm", "matmul", "coalesce", "to_dense", "to_sparse"]
