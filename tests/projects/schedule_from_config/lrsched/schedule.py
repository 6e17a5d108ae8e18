from lrsched import config


def rate_at(step):
    return config.RATES[step // config.EPOCH_LENGTH]  # expect: JAX102
