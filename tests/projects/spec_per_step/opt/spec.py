class UpdateSpec:
    def __init__(self, lr, momentum):
        self.lr = lr
        self.momentum = momentum
