"""What frameworks keep static under their own transforms, as the analysis knows it.

An NNX object passed to `nnx.jit` is split into its Variables (traced) and everything else (graph
metadata, concrete inside the trace): `self.output_shape` set from a constructor argument is a
tuple there, `self.w = nnx.Param(...)` is traced. (Checked with flax 0.12 on JAX 0.10.2: the
first program below runs; a Python `if` on the Param raises TracerBoolConversionError.)
"""

import textwrap

from jaxlint.engine import lint_source

NNX = """
import jax
import jax.numpy as jnp
from flax import nnx


class Decoder(nnx.Module):
    def __init__(self, latent: int, output_shape: tuple, *, rngs: nnx.Rngs):
        self.output_shape = output_shape
        self.scale = 2
        self.linear = nnx.Linear(latent, 784, rngs=rngs)
        self.w = nnx.Param(jnp.ones(3))

    def generate(self, z):
        logits = jnp.reshape(self.linear(z), (-1, *self.output_shape))
        return nnx.sigmoid(logits) * self.scale
{extra}

@nnx.jit
def sample(model: Decoder, z):
    return model.generate(z)
"""


def _codes(extra: str = "") -> list:
    source = textwrap.dedent(NNX).format(extra=textwrap.indent(textwrap.dedent(extra), "    "))
    return [(f.code, f.line) for f in lint_source(source, "nnx_model.py").findings]


def test_nnx_metadata_attributes_are_static_under_nnx_jit():
    assert _codes() == []


def test_nnx_variables_stay_traced():
    extra = """
    def gated(self, z):
        if self.w.mean() > 0:
            return z
        return -z
    """
    source_codes = _codes(extra.replace("def gated", "def generate_gated"))
    assert source_codes == [], source_codes       # not called from the jitted function: silent
    called = NNX.replace("return model.generate(z)", "return model.gated(z)")
    source = textwrap.dedent(called).format(extra=textwrap.indent(textwrap.dedent(extra), "    "))
    codes = [f.code for f in lint_source(source, "nnx_model.py").findings]
    assert "JAX101" in codes, codes


def test_nnx_attributes_annotated_as_arrays_stay_traced():
    # `Optional[jax.Array]`, `jax.Array | None`, "jax.Array": an array, not metadata; an `int`
    # stays metadata (the look-alike)
    for annotation, traced in (("Optional[jax.Array]", True), ("jax.Array | None", True), ('"jax.Array"', True),
                               ("int", False)):
        source = textwrap.dedent(f"""
            from typing import Optional
            import jax
            import jax.numpy as jnp
            from flax import nnx

            class Gate(nnx.Module):
                def __init__(self, bias: {annotation}):
                    self.bias = bias

                def gated(self, x):
                    if self.bias.sum() > 0:
                        return x
                    return -x

            @nnx.jit
            def apply(model: Gate, x):
                return model.gated(x)
            """)
        codes = [f.code for f in lint_source(source, "gate.py").findings]
        assert ("JAX101" in codes) is traced, (annotation, codes)


LINEN_AGENT = """
import jax
import jax.numpy as jnp
import flax.linen as nn
from flax.training import train_state


class MLP(nn.Module):
    @nn.compact
    def __call__(self, x):
        return nn.Dense(2)(x)


class Agent:
    def __init__(self, state: train_state.TrainState):
        self.model = MLP()
        self.state = state

    def act(self, params, obs):
        return jax.jit({jitted})(params, obs)


def rollout(agent, params, observations):
    return [agent.act(params, obs) for obs in observations]
"""


def test_linen_apply_jitted_per_call_is_a_new_bound_method():
    # `apply` of a linen Module is a method: `self.model.apply` is a new bound method at each
    # access, and jit traces each one again (JAX 0.10.2: 5 calls, 5 traces, as for any bound
    # method); a TrainState's `apply_fn` is a field holding one function: cached (look-alike)
    def codes(jitted):
        return [(f.code, f.line) for f in lint_source(LINEN_AGENT.format(jitted=jitted), "agent.py").findings]
    assert codes("self.model.apply") == [("JAX301", 20)]
    assert codes("self.state.apply_fn") == []


# A layer of the framework built in __init__ and called on a traced array returns a tracer; flax
# re-exports jax.nn's activations; nnx.value_and_grad runs its function under the trace. (Checked
# with flax 0.12.8 on JAX 0.10.2: the print in `__call__` shows a JitTracer, the `if` raises
# TracerBoolConversionError.)
MLP = """
import jax.numpy as jnp
from flax import nnx


class MLP(nnx.Module):
    def __init__(self, din, dout, rngs: nnx.Rngs):
        self.linear = nnx.Linear(din, dout, rngs=rngs)
        self.label = str

    def __call__(self, x):
        h = nnx.relu(self.linear(x))
        {body}
        return h


@nnx.jit
def train_step(model, x, y):
    def loss_fn(model):
        return jnp.mean((model(x) - y) ** 2)

    loss, grads = nnx.value_and_grad(loss_fn)(model)
    return loss


def main():
    model = MLP(3, 1, rngs=nnx.Rngs(0))
    x = jnp.ones((4, 3))
    return train_step(model, x, x.sum(axis=1, keepdims=True))
"""


def _mlp_codes(body: str) -> list:
    source = textwrap.dedent(MLP).replace("{body}", body)
    return [(f.code, f.line) for f in lint_source(source, "mlp.py").findings]


def test_a_framework_layer_called_on_a_tracer_returns_one():
    assert _mlp_codes('print("hidden mean:", h.mean())') == [("JAX107", 13)]
    assert _mlp_codes("if h.sum() > 0:\n            h = -h") == [("JAX101", 13)]


def test_what_a_plain_callable_attribute_returns_is_not_guessed():
    assert _mlp_codes("print(self.label(h.shape))") == []
