"""Error inputs of the OpInfo records (after PyTorch's ``error_inputs_func``): bad arguments and the error
PyTorch raises for each -- its type and a regex of its message, checked against real PyTorch by
``test_errors_opinfo.py`` when it is installed, and against xtensor on every backend.

Families cover what goes wrong the same way across many ops (shapes that do not broadcast, a dim out of
range, a dtype the op refuses); ``cases`` declares one op's own bad inputs. Every family derives its bad
sample from the record's own samples, so a family attached to a record exercises that record's spelling.
Where PyTorch's message names a kernel (``"abs_cpu" not implemented for 'Bool'``) the regex keeps the part
a user reads (``not implemented for 'Bool'``).
"""
import re

import numpy as np

from opinfo import BY_NAME, DT, ErrorInput, SampleInput, array_leaves, replace_leaves


def _samples(info):
    dtype = "float32" if "float32" in info.dtypes else info.dtypes[0]
    return info.samples(dtype)


def _first(info, keep, what):
    s = next((s for s in _samples(info) if keep(s)), None)
    if s is None:
        raise LookupError(f"{info.name}: no sample {what} to derive an error input from")
    return s


def _retyped(s, dtype):
    """``s`` with every float array as ``dtype``."""
    def cast(a):
        if a.dtype.kind != "f":
            return a
        return np.asarray(a > 0) if dtype == "bool" else a.astype(dtype)
    return SampleInput(replace_leaves(s.args, iter([cast(a) for a in array_leaves(s.args)])), dict(s.kwargs),
                       desc=f"{s.desc}:{dtype}")


# --------------------------------------------------------------------------- families
BROADCAST = r"The size of tensor a \(\d+\) must match the size of tensor b \(\d+\) at non-singleton dimension \d+"


def broadcast(position=1):
    """The array argument at ``position`` (among the array leaves) resized so that it does not broadcast."""
    def gen(info):
        s = _first(info, lambda s: len(array_leaves(s.args)) > position
                   and all(a.ndim == 2 for a in array_leaves(s.args)), "with 2-d arrays")
        leaves = array_leaves(s.args)
        bad = leaves[:position] + [np.ones((leaves[position].shape[-1] + 2,), leaves[position].dtype)] \
            + leaves[position + 1:]
        return [ErrorInput(SampleInput(replace_leaves(s.args, iter(bad)), dict(s.kwargs), desc="bcast"),
                           RuntimeError, BROADCAST)]
    return gen


def dim_out_of_range(position=1):
    """The int ``dim`` at ``position`` of a sample with a 2-d input, one past either end."""
    def gen(info):
        s = next((s for s in _samples(info) if len(s.args) > position and type(s.args[position]) is int
                  and isinstance(s.args[0], np.ndarray) and s.args[0].ndim == 2),
                 SampleInput((np.ones((3, 4), "float32"), 0)))
        out = []
        for bad in (2, -3):
            args = s.args[:position] + (bad,) + s.args[position + 1:]
            out.append(ErrorInput(SampleInput(args, dict(s.kwargs), desc=f"dim{bad}"), IndexError,
                                  re.escape(f"Dimension out of range (expected to be in range of [-2, 1], "
                                            f"but got {bad})")))
        return out
    return gen


def refuses(dtype, error_type=NotImplementedError, match=None):
    """The op's first sample with 2-d float arrays, in ``dtype``; PyTorch refuses it with ``match``."""
    names = {"bool": "Bool", "int64": "Long", "complex64": "ComplexFloat"}
    match = match or f"not implemented for '{names[dtype]}'"

    def gen(info):
        s = _first(info, lambda s: array_leaves(s.args) and all(a.ndim == 2 and a.dtype.kind == "f"
                                                                for a in array_leaves(s.args)), "with 2-d float arrays")
        return [ErrorInput(_retyped(s, dtype), error_type, match)]
    return gen


def number_other():
    """The op's first sample of two arrays with a Python number for the second: PyTorch binds Tensors only."""
    def gen(info):
        s = _first(info, lambda s: len(s.args) == 2 and len(array_leaves(s.args)) == 2, "of two arrays")
        return [ErrorInput(SampleInput((s.args[0], 2), dict(s.kwargs), desc="number"), TypeError,
                           r"argument 'other' \(position 2\) must be Tensor, not int")]
    return gen


def cases(*specs):
    """One op's own bad inputs: ``(args, kwargs, error_type, match)``."""
    def gen(info):
        return [ErrorInput(SampleInput(args, kwargs, desc=f"case{i}"), error_type, match)
                for i, (args, kwargs, error_type, match) in enumerate(specs)]
    return gen


def declare(names, *families):
    for name in names.split():
        info = BY_NAME[name]
        previous = info.error_inputs
        info.error_inputs = (lambda prev: lambda i: [e for f in ((prev,) if prev else ()) + families
                                                     for e in f(i)])(previous)


# --------------------------------------------------------------------------- elementwise
_BINARY = ("add sub mul div pow maximum minimum atan2 remainder floor_divide eq ne lt le gt ge logical_and "
           "logical_or logical_xor hypot logaddexp copysign xlogy nextafter fmod fmax fmin div_floor div_trunc "
           "max_other min_other where")
declare(_BINARY, broadcast())
declare("lerp addcmul addcdiv clamp_tensor isclose dist", broadcast())
declare("maximum minimum fmax fmin atan2 hypot logaddexp nextafter logical_and logical_or logical_xor",
        number_other())  # found by the differential fuzzer
declare("bitwise_and bitwise_or bitwise_xor bitwise_left_shift bitwise_right_shift",
        lambda info: [ErrorInput(SampleInput((np.arange(3), np.arange(4))), RuntimeError, BROADCAST),
                      ErrorInput(SampleInput((np.ones(3, "float32"), np.arange(3))), RuntimeError,
                                 "not implemented for 'Float'")])

declare("abs floor ceil trunc frac pow remainder floor_divide fmod hypot logaddexp nextafter div_floor div_trunc "
        "lerp addcmul round_decimals", refuses("bool"))
declare("frac hypot logaddexp nextafter lerp round_decimals", refuses("int64"))
declare("neg", refuses("bool", RuntimeError, r"Negation, the `-` operator, on a bool tensor is not supported"))
declare("sub", refuses("bool", RuntimeError,
                       r"Subtraction, the `-` operator, with two bool tensors is not supported"))
declare("positive", refuses("bool", RuntimeError, r"The `\+` operator, on a bool tensor is not supported"))
declare("relu", refuses("bool", RuntimeError, "Boolean inputs not supported for relu"))
declare("addcdiv", refuses("int64", RuntimeError, "Integer division with addcdiv is no longer supported"))
for _name in ("floor", "ceil", "trunc"):
    declare(_name, refuses("complex64", NotImplementedError, f"{_name} is not supported for complex inputs"))
declare("lt le gt ge atan2 remainder fmod copysign xlogy nextafter erf erfc erfinv logit lgamma digamma polygamma i0 "
        "igamma igammac", refuses("complex64"))
for _name in ("maximum", "minimum", "fmax", "fmin"):
    declare(_name, refuses("complex64", RuntimeError, f"{_name} not implemented for complex tensors"))
declare("clamp clamp_tensor relu", refuses("complex64", NotImplementedError, "clamp is not supported for complex"))
declare("signbit", refuses("complex64", NotImplementedError, "signbit is not implemented for complex tensors"))
for _name in ("isposinf", "isneginf"):
    declare(_name, refuses("complex64", RuntimeError, f"{_name} does not support complex inputs"))

# --------------------------------------------------------------------------- reductions
declare("sum mean prod nansum nanmean amax amin argmax argmin logsumexp all any count_nonzero cumsum cumprod "
        "cummax cummin var std var_mean std_mean max_dim min_dim median_dim nanmedian_dim "
        "mode", dim_out_of_range())
declare("kthvalue", dim_out_of_range(2))
for _name in ("argmax", "argmin"):
    declare(_name, refuses("bool", RuntimeError, f"{_name}\\(\\): does not support bool input"),
            refuses("complex64", RuntimeError, f"{_name}\\(\\): does not support complex input"))
declare("var std", refuses("int64", RuntimeError, "std and var only support floating point and complex dtypes"))
declare("var_mean", refuses("int64", RuntimeError, "var_mean only support floating point and complex dtypes"))
declare("std_mean", refuses("int64", RuntimeError, "std_mean only support floating point and complex dtypes"))
declare("nanmean", refuses("int64", RuntimeError,
                           "nanmean\\(\\): expected input to have floating point or complex dtype but got Long"))
declare("topk", refuses("bool", RuntimeError, "topk does not support bool dtypes"),
        refuses("complex64", RuntimeError, "topk does not support complex dtypes"))
declare("kthvalue median", refuses("bool"), refuses("complex64"))
declare("cummax cummin amax amin", refuses("complex64"))
declare("topk", cases(((np.ones((3, 4), "float32"), 5), {}, RuntimeError, "selected index k out of range")))
declare("kthvalue", cases(((np.ones((3, 4), "float32"), 5), {}, RuntimeError,
                           r"kthvalue\(\): selected number k out of range for dimension 1")))

# --------------------------------------------------------------------------- linear algebra
_M = np.ones((2, 3), "float32")
declare("matmul mm", cases(((_M, np.ones((4, 5), "float32")), {}, RuntimeError,
                            re.escape("mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)")),
                           ((_M, np.ones((3, 2), "float64")), {}, RuntimeError,
                            "expected (m1 and m2|both arguments|mat1 and mat2) to have the same dtype")),
        refuses("bool"))
declare("matmul", cases(((np.ones((), "float32"), _M), {}, RuntimeError,
                         "both arguments to matmul need to be at least 1D")))
declare("mm", cases(((np.ones(3, "float32"), _M), {}, RuntimeError, "self must be a matrix")))
declare("bmm", cases(((_M, _M), {}, RuntimeError, "batch1 must be a 3D tensor")))
declare("mv", cases(((_M, np.ones(4, "float32")), {}, RuntimeError,
                     re.escape("size mismatch, got input (2), mat (2x3), vec (4)"))))
declare("dot", cases(((np.ones(3, "float32"), np.ones(4, "float32")), {}, RuntimeError,
                      "inconsistent tensor size, expected tensor \\[3\\] and src \\[4\\] to have the same number "
                      "of elements, but got 3 and 4 elements respectively"),
                     ((_M, _M), {}, RuntimeError, "1D tensors expected, but got 2D and 2D tensors")))
declare("linalg_inv inverse det", cases(
    ((_M,), {}, RuntimeError, "must be batches of square matrices, but they are 2 by 3 matrices"),
    ((np.ones(3, "float32"),), {}, RuntimeError, "must have at least 2 dimensions")))
declare("linalg_inv inverse", cases(
    ((np.zeros((2, 2), "float32"),), {}, RuntimeError, "The diagonal element 1 is zero, the inversion could not "
                                                       "be completed because the input matrix is singular")))
declare("linalg_solve", cases(((np.ones((3, 3), "float32"), np.ones((4,), "float32")), {}, RuntimeError,
                               "Incompatible shapes of A and B for the equation")))
declare("cholesky", cases(((-np.eye(2, dtype="float32"),), {}, RuntimeError,
                           "The factorization could not be completed because the input is not positive-definite")))
declare("cross", cases(((np.ones((2, 2), "float32"), np.ones((2, 2), "float32")), {"dim": 1}, RuntimeError,
                        "inputs dimension 1 must have length 3")))

# --------------------------------------------------------------------------- shapes
_X = np.ones((3, 4), "float32")
declare("view", cases(((_X, 5), {}, RuntimeError, re.escape("shape '[5]' is invalid for input of size 12")),
                      ((_X, -1, -1), {}, RuntimeError, "only one dimension can be inferred"),
                      ((_X, -8, 2), {}, RuntimeError, re.escape("invalid shape dimension -8"))))
declare("reshape", cases(((_X, 5), {}, RuntimeError, re.escape("shape '[5]' is invalid for input of size 12"))))
declare("permute", cases(((_X, 0), {}, RuntimeError, "number of dimensions in the tensor input does not match "
                                                     "the length of the desired ordering of dimensions"),
                         ((_X, (0, 0)), {}, RuntimeError, "duplicate dims are not allowed")))
declare("transpose swapaxes swapdims movedim moveaxis", dim_out_of_range())
declare("unsqueeze", cases(((_X, 3), {}, IndexError, re.escape(
    "Dimension out of range (expected to be in range of [-3, 2], but got 3)"))))
declare("squeeze flatten", dim_out_of_range())
declare("expand", cases(((_X, 2, 4), {}, RuntimeError, re.escape(
    "The expanded size of the tensor (2) must match the existing size (3) at non-singleton dimension 0.  "
    "Target sizes: [2, 4].  Tensor sizes: [3, 4]")),
    ((_X, 4), {}, RuntimeError, "the number of sizes provided \\(1\\) must be greater or equal to the number "
                                "of dimensions in the tensor \\(2\\)")))
declare("cat", cases((([_X, np.ones((3, 5), "float32")],), {}, RuntimeError, re.escape(
    "Sizes of tensors must match except in dimension 0. Expected size 4 but got size 5 for tensor number 1 "
    "in the list")),
    (([],), {}, ValueError, "expected a non-empty list of Tensors"),
    (([np.ones((), "float32")],), {}, RuntimeError, "zero-dimensional tensor \\(at position 0\\) cannot be "
                                                    "concatenated"),
    (([_X, _X], 2), {}, IndexError, re.escape("Dimension out of range (expected to be in range of [-2, 1], "
                                              "but got 2)"))))
declare("stack", cases((([_X, np.ones((3, 5), "float32")],), {}, RuntimeError,
                        re.escape("stack expects each tensor to be equal size, but got [3, 4] at entry 0 and "
                                  "[3, 5] at entry 1")),
                       (([],), {}, RuntimeError, "stack expects a non-empty TensorList")))
declare("unbind", dim_out_of_range())
declare("split chunk", dim_out_of_range(2))
declare("flip", cases(((_X, (2,)), {}, IndexError, re.escape(
    "Dimension out of range (expected to be in range of [-2, 1], but got 2)"))))
declare("chunk", cases(((_X, 0), {}, RuntimeError, "chunk expects `chunks` to be greater than 0, got: 0")))
declare("repeat", cases(((_X, 2), {}, RuntimeError, "Number of dimensions of repeat dims can not be smaller than "
                                                    "number of dimensions of tensor")))
declare("unflatten", cases(((_X, 1, (3, 2)), {}, RuntimeError, re.escape(
    "unflatten: Provided sizes [3, 2] don't multiply up to the size of dim 1 (4) in the input tensor"))))

# --------------------------------------------------------------------------- indexing
_I = np.array([0, 5])
declare("index_select", cases(((_X, 0, _I), {}, IndexError, "index out of range in self"),
                              ((_X, 0, np.array([0.0])), {}, RuntimeError,
                               "index_select\\(\\): Expected dtype int32 or int64 for index")),
        dim_out_of_range())
declare("gather", cases(((_X, 1, np.array([[0, 4]])), {}, RuntimeError, "index 4 is out of bounds for dimension 1 "
                                                                       "with size 4"),
                        ((_X, 1, np.array([[0.0]])), {}, RuntimeError, "gather\\(\\): Expected dtype int32/int64 for index"),
                        ((_X, 1, np.array([0])), {}, RuntimeError,
                         "Index tensor must have the same number of dimensions as input tensor")))
declare("take", cases(((_X, np.array([12])), {}, IndexError, "out of range: tried to access index 12 on a tensor "
                                                            "of 12 elements")))
declare("getitem_basic", cases(((_X, 3), {}, IndexError, "index 3 is out of bounds for dimension 0 with size 3"),
                               ((_X, (0, 0, 0)), {}, IndexError, "too many indices for tensor of dimension 2")))
declare("getitem_advanced", cases(((_X, np.array([0, 3])), {}, IndexError,
                                   "index 3 is out of bounds for dimension 0 with size 3"),
                                  ((_X, np.array([0.0])), {}, IndexError,
                                   "tensors used as indices must be long, int, byte or bool tensors"),
                                  ((_X, np.array([True, False])), {}, IndexError,
                                   re.escape("The shape of the mask [2] at index 0 does not match the shape of the "
                                             "indexed tensor [3, 4] at index 0"))))
declare("masked_fill", cases(((_X, np.ones(3, bool), 1.0), {}, RuntimeError, BROADCAST),
                             ((_X, np.ones((3, 4), "float32"), 1.0), {}, RuntimeError,
                              "masked_fill_ only supports boolean masks, but got mask with dtype [Ff]loat")))
declare("scatter scatter_add", cases(((_X, 1, np.array([[0, 4]]), np.ones((1, 2), "float32")), {}, RuntimeError,
                                      "index 4 is out of bounds for dimension 1 with size 4")))
_DIM2 = re.escape("Dimension out of range (expected to be in range of [-2, 1], but got 2)")
declare("diagonal", cases(((_X, 0, 2), {}, IndexError, _DIM2)))
declare("roll", cases(((_X, 1, 2), {}, IndexError, _DIM2)))
declare("constant_pad_nd", cases(((_X, (1, 2, 3)), {}, RuntimeError, "Length of pad must be even"),
                                 ((_X, (1,) * 6), {}, RuntimeError, "Length of pad should be no more than twice"),
                                 ((_X, (-3, -2)), {}, RuntimeError, "length must be non-negative"),
                                 ((_X, (1.5, 1)), {}, TypeError, "must be tuple of ints")))


# --------------------------------------------------------------------------- out= of a dtype the result cannot be cast to
def out_of_narrower_kind(info):
    """``out=`` an int64 tensor for a float result (a float32 sample): PyTorch refuses the downcast."""
    s = next((s for s in _samples(info) if any(a.dtype == np.float32 for a in array_leaves(s.args))
              and all(a.dtype.kind != "f" or a.dtype == np.float32 for a in array_leaves(s.args))
              and info.out_dtype(s.args, s.kwargs) == np.float32), None)
    if s is None:  # no float result to refuse
        return []
    out = np.zeros((), "int64")
    return [ErrorInput(SampleInput(s.args, {**s.kwargs, "out": out}, desc="out:int64"), RuntimeError,
                       "result type Float can't be cast to the desired output type Long")]


# Ops where PyTorch refuses in other words ("Found dtype Long but expected Float" from abs, matmul...; a signature
# TypeError from sum without dim): not declared with this family (xtensor gives the message above).
_OUT_WORDED_OTHERWISE = set((
    "relu abs neg sign floor ceil trunc round clone positive clamp sum mean amax amin matmul mm cat "
    "stack frac conj real imag round_decimals nan_to_num clamp_min clamp_max prod nansum nanmean "
    "logsumexp cumsum cumprod addmm addmv baddbmm addbmm bmm mv dot vdot kron diag triu tril inverse "
    "cholesky hstack vstack row_stack dstack column_stack gather scatter scatter_add scatter_reduce "
    "index_select index_add index_copy take take_along_dim mvlgamma").split())  # mvlgamma: "Float ... Float"
declare(" ".join(info.name for info in BY_NAME.values() if info.supports_out and "float32" in info.dtypes
                 and info.name not in _OUT_WORDED_OTHERWISE), out_of_narrower_kind)
