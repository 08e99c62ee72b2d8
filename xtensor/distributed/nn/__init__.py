"""``xtensor.distributed.nn``: torch.distributed.nn's differentiable collectives (``functional``), in a world of
one process (see ``xtensor.distributed.distributed_c10d``). ``RemoteModule`` needs torch's RPC framework,
which xtensor does not have: asking for it raises an AttributeError naming it."""
from .functional import *  # noqa: F401,F403
from .functional import __all__
