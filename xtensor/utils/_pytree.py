"""``torch.utils._pytree``: nested containers flattened to their leaves and rebuilt from a ``TreeSpec``.

The node kinds are torch's: list, tuple, dict (keys in insertion order), OrderedDict, defaultdict, deque,
and namedtuple; anything else (None too, as in torch 2.13) is a leaf, and
``register_pytree_node`` adds a kind. Specs compare equal when the structures are the same, as torch's.
"""
import collections
import dataclasses

__all__ = ["TreeSpec", "LeafSpec", "register_pytree_node", "tree_flatten", "tree_unflatten", "tree_leaves",
           "tree_structure", "tree_map", "tree_map_", "tree_map_only", "tree_all", "tree_any", "treespec_pprint"]


@dataclasses.dataclass(frozen=True)
class _Node:
    flatten: object    # node -> (children, context)
    unflatten: object  # (children, context) -> node


SUPPORTED_NODES = {}


def register_pytree_node(cls, flatten_fn, unflatten_fn, *, serialized_type_name=None, to_dumpable_context=None,
                         from_dumpable_context=None, flatten_with_keys_fn=None):
    """Make ``cls`` a node kind: ``flatten_fn(node) -> (children, context)``, ``unflatten_fn(children, context)``."""
    if cls in SUPPORTED_NODES:
        raise ValueError(f"{cls} is already registered as pytree node.")
    SUPPORTED_NODES[cls] = _Node(flatten_fn, unflatten_fn)


def _is_namedtuple(node):
    return isinstance(node, tuple) and hasattr(type(node), "_fields")


def _kind(node):
    if _is_namedtuple(node) and type(node) not in SUPPORTED_NODES:
        return "namedtuple"
    return type(node) if type(node) in SUPPORTED_NODES else None


register_pytree_node(list, lambda n: (list(n), None), lambda children, context: list(children))
register_pytree_node(tuple, lambda n: (list(n), None), lambda children, context: tuple(children))
register_pytree_node(dict, lambda n: (list(n.values()), list(n)), lambda children, keys: dict(zip(keys, children)))
register_pytree_node(collections.OrderedDict, lambda n: (list(n.values()), list(n)),
                     lambda children, keys: collections.OrderedDict(zip(keys, children)))
register_pytree_node(collections.defaultdict, lambda n: (list(n.values()), (n.default_factory, list(n))),
                     lambda children, context: collections.defaultdict(context[0], zip(context[1], children)))
register_pytree_node(collections.deque, lambda n: (list(n), n.maxlen),
                     lambda children, maxlen: collections.deque(children, maxlen=maxlen))
_NAMEDTUPLE = _Node(lambda n: (list(n), type(n)), lambda children, cls: cls(*children))


@dataclasses.dataclass(init=True, frozen=True, eq=True, repr=False)
class TreeSpec:
    """The structure of a pytree: a node's type, its context (dict keys, namedtuple class...) and its children's
    specs; a leaf's type is None."""

    type: object
    context: object
    children_specs: list

    def __post_init__(self):
        object.__setattr__(self, "num_leaves", 1 if self.type is None else
                           sum(child.num_leaves for child in self.children_specs))
        object.__setattr__(self, "num_children", len(self.children_specs))

    def is_leaf(self):
        return self.type is None

    def __repr__(self):
        if self.is_leaf():
            return "*"
        return f"TreeSpec({self.type.__name__}, {self.context!r}, {self.children_specs!r})"

    def unflatten(self, leaves):
        return tree_unflatten(leaves, self)


def LeafSpec():
    return TreeSpec(None, None, [])


def _node_def(spec_type, kind):
    return _NAMEDTUPLE if kind == "namedtuple" else SUPPORTED_NODES[spec_type]


def _flatten(tree, leaves, is_leaf):
    kind = None if is_leaf is not None and is_leaf(tree) else _kind(tree)
    if kind is None:
        leaves.append(tree)
        return LeafSpec()
    children, context = _node_def(type(tree), kind).flatten(tree)
    return TreeSpec(type(tree), context, [_flatten(child, leaves, is_leaf) for child in children])


def tree_flatten(tree, is_leaf=None):
    """``(leaves, spec)``: the leaves in order (depth first, dict values in key order) and the structure."""
    leaves = []
    return leaves, _flatten(tree, leaves, is_leaf)


def _build(spec, leaves):
    if spec.is_leaf():
        return next(leaves)
    children = [_build(child, leaves) for child in spec.children_specs]
    kind = "namedtuple" if issubclass(spec.type, tuple) and hasattr(spec.type, "_fields") and \
        spec.type not in SUPPORTED_NODES else spec.type
    return _node_def(spec.type, kind).unflatten(children, spec.context)


def tree_unflatten(leaves, treespec):
    """The tree of ``treespec``'s structure holding ``leaves``."""
    if not isinstance(treespec, TreeSpec):
        raise TypeError(f"tree_unflatten(leaves, treespec): Expected `treespec` to be instance of TreeSpec but got "
                        f"item of type {type(treespec)}.")
    leaves = list(leaves)
    if len(leaves) != treespec.num_leaves:
        raise ValueError(f"treespec.unflatten(leaves): `leaves` has length {len(leaves)} but the spec refers to a "
                         f"pytree that holds {treespec.num_leaves} items ({treespec}).")
    return _build(treespec, iter(leaves))


def tree_leaves(tree, is_leaf=None):
    return tree_flatten(tree, is_leaf)[0]


def tree_structure(tree, is_leaf=None):
    return tree_flatten(tree, is_leaf)[1]


def tree_map(func, tree, *rests, is_leaf=None):
    """``func`` applied leafwise (over ``tree`` and each of ``rests``, which must share its structure)."""
    leaves, spec = tree_flatten(tree, is_leaf)
    others = []
    for rest in rests:
        rest_leaves, rest_spec = tree_flatten(rest, is_leaf)
        if rest_spec != spec:
            raise ValueError(f"Tree structures do not match: {rest_spec} and {spec}")
        others.append(rest_leaves)
    return tree_unflatten([func(*xs) for xs in zip(leaves, *others)], spec)


def tree_map_(func, tree, *rests, is_leaf=None):
    """``func`` called leafwise for its effect; returns ``tree``."""
    tree_map(func, tree, *rests, is_leaf=is_leaf)
    return tree


def tree_map_only(type_or_types, func, tree, is_leaf=None):
    """``func`` applied to the leaves of the given type(s); other leaves kept."""
    return tree_map(lambda x: func(x) if isinstance(x, type_or_types) else x, tree, is_leaf=is_leaf)


def tree_all(pred, tree, is_leaf=None):
    return all(map(pred, tree_leaves(tree, is_leaf)))


def tree_any(pred, tree, is_leaf=None):
    return any(map(pred, tree_leaves(tree, is_leaf)))


def treespec_pprint(treespec):
    return repr(treespec)
