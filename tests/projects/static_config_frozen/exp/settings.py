import dataclasses


@dataclasses.dataclass(frozen=True)
class ModelConfig:
    scale: float = 2.0
    shift: float = 0.5
