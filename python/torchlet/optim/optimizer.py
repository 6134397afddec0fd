"""optim.Optimizer: PyTorch's param_groups over torchlet's C++ optimizers, one per group,
whose step() updates every parameter of the group in one C++ call."""

from torchlet import _C


# The group options the C++ optimizers read: a change to one in param_groups (a scheduler's lr,
# a user's weight_decay) reaches the engine at the next step().
_OPTIONS = ("lr", "weight_decay", "maximize", "momentum", "nesterov", "betas", "eps", "alpha", "centered",
            "lr_decay", "initial_accumulator_value")


class Optimizer:
    def __init__(self, params, defaults):
        self.defaults = defaults
        params = list(params)
        if not params:
            raise ValueError("optimizer got an empty parameter list")
        groups = params if isinstance(params[0], dict) else [{"params": params}]
        self.param_groups, self._engines, self._synced = [], [], []
        for group in groups:
            self.add_param_group(group)

    def add_param_group(self, param_group):
        """Adds a group (a dict with "params" and options that differ from the defaults)."""
        group = dict(self.defaults, **param_group)
        group["params"] = [group["params"]] if isinstance(group["params"], _C.Tensor) else list(group["params"])
        for p in group["params"]:
            if not isinstance(p, _C.Tensor):
                raise TypeError(f"optimizer can only optimize Tensors, but one of the params is {type(p).__name__}")
        seen = {id(p) for g in self.param_groups for p in g["params"]}
        if any(id(p) in seen for p in group["params"]):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(group)
        self._engines.append(self._make_engine(group))
        self._synced.append(tuple(group.get(k) for k in _OPTIONS))

    def _make_engine(self, group):
        raise NotImplementedError

    def zero_grad(self, set_to_none=True):
        for engine in self._engines:
            engine.zero_grad(set_to_none)

    def step(self, closure=None):
        """One update of every parameter that has a gradient; a group's changed options (a
        scheduler's lr, a new weight_decay) apply from this step."""
        loss = closure() if closure is not None else None
        for i, (group, engine) in enumerate(zip(self.param_groups, self._engines)):
            options = tuple(group.get(k) for k in _OPTIONS)
            if options != self._synced[i]:
                engine._set_options({k: group[k] for k in _OPTIONS if k in group})
                self._synced[i] = options
            engine.step()
        return loss

    def __repr__(self):
        lines = [type(self).__name__ + " ("]
        for i, group in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            lines += [f"    {k}: {v}" for k, v in sorted(group.items()) if k != "params"]
        return "\n".join(lines) + "\n)"
