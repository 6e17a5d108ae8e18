import jax


@jax.tree_util.register_pytree_node_class
class Layer:
    def __init__(self, *weights):
        self.weights = weights

    def tree_flatten(self):
        return self.weights, None

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(*children)
