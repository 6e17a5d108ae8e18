from .solver import power_iteration

__all__ = ["power_iteration"]
