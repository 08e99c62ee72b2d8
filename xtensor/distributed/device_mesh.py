"""``DeviceMesh``: PyTorch's grid of devices with named dimensions, over a ``jax.sharding.Mesh``.

A mesh names jax devices by their index in ``jax.devices(platform)`` -- the global list, across
processes once ``init_process_group`` ran -- which is PyTorch's global rank when one process drives
one device. Slicing a mesh by name (``mesh["tp"]``) keeps the whole jax mesh and selects the named
dimensions: a tensor placed on the slice is sharded over those and replicated over the others,
which is what PyTorch's per-rank sub-meshes amount to when one program drives every device.
"""
import math

import numpy as np

__all__ = ["DeviceMesh", "init_device_mesh"]

_JAX_PLATFORMS = {"cpu": "cpu", "cuda": "gpu", "gpu": "gpu", "xla": "tpu", "tpu": "tpu"}


def _jax():
    try:
        import jax
    except ImportError as e:
        raise ImportError("xtensor.distributed runs on jax: pip install 'xtensor[jax]'") from e
    from .._backend import get_backend
    get_backend("jax")  # the adapter's settings: x64, Tensor as a pytree
    return jax


def _platform_devices(device_type):
    """jax's devices (every process's) of the platform that PyTorch's ``device_type`` names."""
    jax = _jax()
    if not isinstance(device_type, str) or ":" in device_type:
        raise RuntimeError(f"Device type with index is not supported but got {device_type}. If you maintained a "
                           "'torch.device' object, it's recommended to pass in 'device.type'.")
    platform = _JAX_PLATFORMS.get(device_type)
    if platform is None:
        raise RuntimeError(f"unknown device type {device_type!r} for a DeviceMesh (expected one of "
                           f"{sorted(_JAX_PLATFORMS)})")
    try:
        return jax.devices(platform)
    except RuntimeError:
        raise RuntimeError(f"jax has no {device_type} devices (it has {jax.default_backend()})") from None


class DeviceMesh:
    """An n-dimensional grid of jax devices (``mesh``: their indices in ``jax.devices(platform)``).

    ``jax_mesh`` is the ``jax.sharding.Mesh`` every placement on this mesh uses.
    """

    def __init__(self, device_type, mesh, *, mesh_dim_names=None):
        devices = _platform_devices(device_type)
        ids = np.asarray(mesh.tolist() if hasattr(mesh, "tolist") else mesh, dtype=np.int64)
        if ids.ndim == 0:
            ids = ids.reshape(1)
        if ids.size > len(devices):
            raise RuntimeError(f"Mesh should not be bigger than default world size {len(devices)}, but found "
                               f"{ids.size} ranks!")
        if ids.size and (ids.min() < 0 or ids.max() >= len(devices) or len(set(ids.flat)) != ids.size):
            raise ValueError(f"a DeviceMesh holds distinct device indices in [0, {len(devices)}), got "
                             f"{ids.tolist()}")
        if mesh_dim_names is not None:
            mesh_dim_names = tuple(mesh_dim_names)
            if len(set(mesh_dim_names)) != len(mesh_dim_names):
                raise RuntimeError("Each mesh_dim_name must be unique. Found repeated mesh_dim_name in "
                                   f"mesh_dim_names {mesh_dim_names}")
            if len(mesh_dim_names) != ids.ndim:
                raise RuntimeError("mesh_shape and mesh_dim_names should have same length! Found "
                                   f"len(mesh_dim_names): {len(mesh_dim_names)} and len(mesh_shape):{ids.ndim}.")
        from jax.sharding import AxisType, Mesh
        axis_names = mesh_dim_names or tuple(f"dim_{i}" for i in range(ids.ndim))
        # Auto axes: XLA propagates shardings through every op the tape runs and inserts the collectives
        self.jax_mesh = Mesh(np.asarray(devices, dtype=object)[ids], axis_names,
                             axis_types=(AxisType.Auto,) * ids.ndim)
        self.device_type = device_type
        self._ids = ids
        self._names = mesh_dim_names
        self._dims = tuple(range(ids.ndim))  # the dimensions of ``jax_mesh`` this mesh spans

    # -- PyTorch's view of the mesh ---------------------------------------------------------------
    @property
    def mesh_dim_names(self):
        return None if self._names is None else tuple(self._names[d] for d in self._dims)

    @property
    def axis_names(self):
        """The jax mesh axes this mesh spans (its ``mesh_dim_names``, or ``dim_i`` when unnamed)."""
        return tuple(self.jax_mesh.axis_names[d] for d in self._dims)

    @property
    def ndim(self):
        return len(self._dims)

    @property
    def shape(self):
        return tuple(self._ids.shape[d] for d in self._dims)

    def size(self, mesh_dim=None):
        return math.prod(self.shape) if mesh_dim is None else self.shape[mesh_dim]

    @property
    def mesh(self):
        """The device indices of this mesh as an int64 tensor; for a slice, the one holding this process's
        first device (PyTorch gives the current rank's)."""
        from .._creation import tensor
        ids = self._ids
        if self._dims != tuple(range(ids.ndim)):
            process = _jax().process_index()
            coord = next((c for c, d in np.ndenumerate(self.jax_mesh.devices) if d.process_index == process),
                         (0,) * ids.ndim)
            ids = ids[tuple(slice(None) if d in self._dims else coord[d] for d in range(ids.ndim))]
        return tensor(ids)

    def __getitem__(self, names):
        """The mesh over the named dimensions (in the mesh's order), replicated over the others."""
        if self._names is None:
            raise RuntimeError("Cannot slice a DeviceMesh without mesh_dim_names!")
        names = (names,) if isinstance(names, str) else tuple(names)
        valid = list(self.mesh_dim_names)
        if not names or not all(n in valid for n in names):
            raise KeyError(f"Invalid mesh_dim_names {names} specified. Valid mesh_dim_names are {valid}.")
        dims = tuple(self._dims[valid.index(n)] for n in names)
        if list(dims) != sorted(dims):
            raise KeyError(f"Invalid mesh_dim_names {names} specified. Mesh dim indices should be in ascending "
                           "order.")
        sliced = object.__new__(DeviceMesh)
        sliced.__dict__.update(self.__dict__, _dims=dims)
        return sliced

    def __repr__(self):
        sizes = f"({', '.join(f'{n}={s}' for n, s in zip(self.mesh_dim_names, self.shape))})" if self._names \
            else str(self.shape)
        return f"DeviceMesh({sizes}, '{self.device_type}', devices={self.mesh.tolist()})"

    def __eq__(self, other):
        return isinstance(other, DeviceMesh) and self.jax_mesh == other.jax_mesh and self._dims == other._dims

    def __hash__(self):
        return hash((self.jax_mesh, self._dims))


def init_device_mesh(device_type, mesh_shape, *, mesh_dim_names=None):
    """A mesh of ``mesh_shape`` over the first ``prod(mesh_shape)`` jax devices of ``device_type``
    (all processes' devices, in jax's order: after ``init_process_group``, process 0's come first)."""
    mesh_shape = tuple(mesh_shape)
    if mesh_dim_names is not None and len(mesh_dim_names) != len(mesh_shape):
        raise RuntimeError("mesh_shape and mesh_dim_names should have same length! Found "
                           f"len(mesh_dim_names): {len(mesh_dim_names)} and len(mesh_shape):{len(mesh_shape)}.")
    ids = np.arange(math.prod(mesh_shape)).reshape(mesh_shape)
    return DeviceMesh(device_type, ids, mesh_dim_names=mesh_dim_names)
