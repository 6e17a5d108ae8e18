def damp(i, state):
    x, rate = state
    if rate > 0.1:  # expect: JAX101
        x = x * (1.0 - rate)
    return x, rate
