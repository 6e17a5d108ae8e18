import dataclasses


@dataclasses.dataclass
class ModelConfig:
    scale: float = 2.0
    shift: float = 0.5
