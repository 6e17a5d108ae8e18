from fit import state as state_lib
from fit.steps import evaluate, train_step


def fit(x, y, steps):
    state = state_lib.create(x.shape[1])
    for _ in range(steps):
        before = evaluate(state, x, y)
        state = train_step(state, x, y)
    return state, before
