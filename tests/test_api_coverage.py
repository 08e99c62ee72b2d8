"""How much of PyTorch's public API xtensor has (issue 11 item 9): measured from the installed torch.

The list: every public routine of ``torch``, ``torch.nn.functional``, ``torch.linalg``, ``torch.special`` and
``torch.fft``, and every public method and attribute of ``torch.Tensor``, less the exclusions below -- parts
of PyTorch that make no sense without its own runtime (sparse and quantized tensors, CUDA/vendor kernels,
distributed, TorchScript and torch.compile internals...) -- each with its reason. A name counts as present
when xtensor's namespace (``xtensor``, ``xtensor.Tensor``, ``xtensor.nn.functional``, ...) has it; whether it
behaves as PyTorch's is for the tests of each feature (``tests/test_api_additions.py`` for the names added
to close this gap).

Print the figure and the missing names: ``python tests/test_api_coverage.py`` (``-v``: the excluded ones too).
"""
import importlib
import inspect
import re
import sys

import pytest

NAMESPACES = (("torch", "xtensor"), ("torch.Tensor", "xtensor.Tensor"),
              ("torch.nn.functional", "xtensor.nn.functional"), ("torch.linalg", "xtensor.linalg"),
              ("torch.special", "xtensor.special"), ("torch.fft", "xtensor.fft"))

# (regular expression on the qualified name, reason). Names starting with ``_`` are never listed.
EXCLUDED = (
    (r"sparse_(bsc|bsr|csc|csr|compressed)|is_sparse_csr|\.(ccol|crow|col|row)_indices$|sparse_resize|"
     r"resize_as_sparse|\.(dsmm|hsmm|smm|hspmm|saddmm|sspaddmm)$",
     "compressed sparse layouts (CSR/CSC/BSR/BSC) and PyTorch's legacy sparse kernels (xtensor.sparse has COO)"),
    (r"quantiz|(^|\.)q_|qscheme|int_repr|qparams|fake_quant|(^|\.)empty_quantized",
     "quantized tensors (a dtype family xtensor does not have)"),
    (r"cudnn|miopen|mkldnn|fbgemm|vulkan|(^|\.)(is_)?(xpu|ipu|mps|mtia|maia|xla|hpu)$|record_stream|cupti|"
     r"pin_memory|is_pinned",
     "vendor kernels and accelerators other than the CPU (xtensor's devices are its backends')"),
    (r"autocast", "automatic mixed precision (a CUDA/CPU-kernel feature of PyTorch)"),
    (r"distributed", "torch.distributed process groups (xtensor.distributed is jax's sharding)"),
    (r"(^|\.)is_nested$|to_padded_tensor", "nested tensors (a layout xtensor does not have)"),
    (r"(^|\.)sym_|^torch\.(cond|while_loop|fork|wait|classproperty)$|_ir(_|$)|import_ir|parse_(schema|type)|"
     r"type_comment|unify_type_list",
     "TorchScript / torch.compile / export internals (symbolic shapes, control-flow operators, IR parsing)"),
    (r"^torch\.(?!index_copy$)\w+_copy$",
     "the out-of-place twins of view ops that PyTorch generates for functionalization (torch.compile)"),
    (r"(^|\.)native_|(^|\.)batch_norm_(stats|elemt|gather|backward|update)",
     "ATen kernels behind nn modules (native_*, SyncBatchNorm's CUDA kernels); the modules are the API"),
    (r"^torch\.(rnn_(tanh|relu)|lstm|gru)(_cell)?$",
     "ATen kernels behind nn.RNN/LSTM/GRU, undocumented; the modules are the API"),
    (r"^torch\.(set_num_threads|get_num_threads|set_num_interop_threads|get_num_interop_threads|"
     r"init_num_threads|set_flush_denormal|set_float32_matmul_precision|get_float32_matmul_precision|"
     r"compiled_with_cxx11_abi|prepare_multiprocessing_environment|get_file_path|from_file|"
     r"thread_safe_generator|get_device_module)$",
     "settings and facts of PyTorch's own C++ runtime (its thread pools, build, file-backed storages)"),
    (r"^torch\.Tensor\.(share_memory_|is_shared|storage_type|module_load|is_set_to|set_|const_data_ptr|"
     r"is_meta|grad_dtype)$",
     "storage internals: shared-memory storages, meta tensors, swapping storages under a tensor"),
    (r"^torch\.(symeig|eig|lstsq|solve|matrix_rank)$|^torch\.Tensor\.(symeig|eig|lstsq|solve|reinforce|"
     r"volatile)$",
     "removed from PyTorch: calling them raises in torch 2.x (the torch.linalg functions replace them)"),
    (r"^torch\.(frobenius_norm|nuclear_norm|norm_except_dim|slice_inverse|embedding_renorm_|constant_pad_nd|"
     r"convolution|conv_tbc|segment_reduce|hash_tensor|alias_copy)$|^torch\.Tensor\.(hash_tensor|slice_inverse)$",
     "ATen operators exposed for TorchScript/JIT only: no documentation entry (torch.nuclear_norm says it is "
     "'left for JIT compatibility'); the documented spellings (linalg.norm, F.pad, F.conv*d) are the API"),
    (r"^torch\.nn\.functional\.(has_torch_function\w*|handle_torch_function|boolean_dispatch|"
     r"assert_int_or_pair)$",
     "helpers torch.nn.functional imports for its own use (the __torch_function__ protocol, argument checks)"),
    (r"^torch\.Tensor\.index$", "functorch.dim's first-class dimensions (a prototype that binds Dim objects)"),
    (r"^torch\.nn\.functional\.(scaled_mm|scaled_grouped_mm|grouped_mm)$",
     "low-precision grouped matmuls that PyTorch runs on CUDA only"),
)


def _public(obj, is_class):
    for name in dir(obj):
        if name.startswith("_"):
            continue
        value = inspect.getattr_static(obj, name) if is_class else getattr(obj, name)
        if is_class or (callable(value) and not isinstance(value, type) and
                        getattr(value, "__module__", None) != "typing"):  # F imports typing.Optional
            yield name


def api(torch_module=None):
    """``{qualified torch name: (xtensor object, name)}`` of every listed name, and ``{qualified name: reason}``
    of the excluded ones."""
    listed, excluded = {}, {}
    for torch_name, xtensor_name in NAMESPACES:
        obj = _resolve(torch_name)
        mine = _resolve(xtensor_name)
        for name in _public(obj, isinstance(obj, type)):
            qualified = f"{torch_name}.{name}"
            reason = next((why for pattern, why in EXCLUDED if re.search(pattern, qualified)), None)
            if reason is None:
                listed[qualified] = (mine, name)
            else:
                excluded[qualified] = reason
    return listed, excluded


def _resolve(dotted):
    module, _, attr = dotted.rpartition(".")
    if dotted in sys.modules or not module:
        return importlib.import_module(dotted)
    try:
        return importlib.import_module(dotted)
    except ImportError:
        return getattr(importlib.import_module(module), attr)


def missing():
    listed, _ = api()
    return sorted(q for q, (mine, name) in listed.items() if not hasattr(mine, name))


def coverage():
    listed, _ = api()
    return 1 - len(missing()) / len(listed)


@pytest.fixture(scope="module")
def torch_api():
    pytest.importorskip("torch")
    return api()


def _figure(listed, left_out=()):
    """(coverage, missing names) of ``listed`` less the namespaces ``left_out``."""
    names = {q: v for q, v in listed.items() if q.rpartition(".")[0] not in left_out}
    gone = sorted(q for q, (mine, name) in names.items() if not hasattr(mine, name))
    return 1 - len(gone) / len(names), gone


def test_coverage_of_pytorch_api_is_at_least_95_percent(torch_api):
    listed, _ = torch_api
    figure, gone = _figure(listed)
    assert figure >= 0.95, (f"xtensor has {figure:.1%} of the {len(listed)} listed PyTorch names; missing "
                            f"({len(gone)}): {' '.join(gone)}")


def test_coverage_of_each_namespace_is_at_least_90_percent(torch_api):
    """No namespace hides behind the others' figure."""
    listed, _ = torch_api
    spaces = {q.rpartition(".")[0] for q in listed}
    low = {space: figure for space in spaces
           if (figure := _figure(listed, left_out=spaces - {space})[0]) < 0.90}
    assert low == {}


def test_every_exclusion_matches_a_name(torch_api):
    """No stale entries: each pattern excludes something in the installed torch."""
    _, excluded = torch_api
    reasons = set(excluded.values())
    assert [why for _, why in EXCLUDED if why not in reasons] == []


def test_exclusions_leave_most_of_the_api_listed(torch_api):
    """The exclusion list stays short: it removes well under a third of the public names."""
    listed, excluded = torch_api
    assert len(excluded) < 0.3 * (len(listed) + len(excluded))


def _report(verbose=False):
    listed, excluded = api()
    gone = missing()
    print(f"xtensor has {1 - len(gone) / len(listed):.1%} of {len(listed)} PyTorch names "
          f"({len(excluded)} excluded); missing {len(gone)}:")
    for torch_name, _ in NAMESPACES:
        total = sum(q.rpartition(".")[0] == torch_name for q in listed)
        names = [q[len(torch_name) + 1:] for q in gone if q.rpartition(".")[0] == torch_name]
        print(f"  {torch_name} ({1 - len(names) / total:.1%} of {total}; missing {len(names)}): {' '.join(names)}")
    if verbose:
        for q, why in sorted(excluded.items()):
            print(f"  excluded {q}: {why}")


if __name__ == "__main__":
    _report("-v" in sys.argv)
