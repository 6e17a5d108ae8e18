from fit import state as state_lib
from fit.steps import evaluate, train_step


def fit(x, y, steps):
    state = state_lib.create(x.shape[1])
    for _ in range(steps):
        new_state = train_step(state, x, y)
        before = evaluate(state, x, y)  # expect: JAX403
        state = new_state
    return state, before
