"""The training run's settings: one JSON file, every key optional, unknown keys refused.

>>> c = TrainConfig.from_dict({"hidden": [64, 64], "rounds": 3})
>>> c.hidden, c.rounds, c.num_envs
((64, 64), 3, 64)
>>> TrainConfig.from_dict({"hiden": [64]})
Traceback (most recent call last):
...
ValueError: unknown training setting 'hiden'; known: seed, hidden, num_envs, steps, epsilon, opponents, teacher, teacher_rounds, teacher_decisions, teacher_lr, actors, actor_mode, ray_address, rounds, batch_size, epochs, lr, max_grad_norm, torch_threads, device, eval_every, eval_deals, eval_opponents, checkpoint_every
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, fields

__all__ = ["TrainConfig", "ACTOR_MODES"]

#: Where the actors run: in the learner's thread, in threads, in processes, on Ray.
ACTOR_MODES = ("local", "threads", "processes", "ray")


@dataclass(frozen=True)
class TrainConfig:
    """A DMC run (docs/training.md, "Settings"): the network, the teacher rounds, the actors'
    rounds, the learner, the evaluation and the checkpoints. The shipped agent's run is
    ``shipped()``; a key left out of a file takes the default here."""

    seed: int = 0
    hidden: tuple = (256, 256)        # hidden layer widths of the Q-network
    num_envs: int = 64                # tables per actor
    steps: int = 400                  # steps per actor and round (then hands are played out)
    epsilon: float = 0.01             # probability of a uniform candidate at a decision
    opponents: tuple = ("self",)      # by turns per round: 'self' (self-play) or a VecEnv bot
    teacher: str | None = None        # the agent the first teacher_rounds rounds learn from
    teacher_rounds: int = 0           # rounds of learning the teacher's ranking, before self-play
    teacher_decisions: int = 50_000   # the teacher's decisions per teacher round
    teacher_lr: float | None = None   # Adam's step size in teacher rounds (None: lr)
    actors: int = 1
    actor_mode: str = "local"         # one of ACTOR_MODES
    ray_address: str | None = None    # actor_mode 'ray': the cluster (None: local or RAY_ADDRESS)
    rounds: int = 1000                # rounds in all (a resumed run goes on to this many)
    batch_size: int = 512
    epochs: int = 1                   # passes of the learner over each round's samples
    lr: float = 1e-3                  # Adam's step size
    max_grad_norm: float = 40.0
    torch_threads: int = 1
    device: str = "auto"              # 'auto' (a GPU when there is one), 'cpu', 'cuda'
    eval_every: int = 50              # rounds between duplicate evaluations (0: none)
    eval_deals: int = 48              # deals per evaluation and opponent (each played twice)
    eval_opponents: tuple = ("greedy", "expert")
    checkpoint_every: int = 10        # rounds between checkpoints (and at the end, Ctrl-C)

    def __post_init__(self) -> None:
        object.__setattr__(self, "hidden", tuple(self.hidden))
        object.__setattr__(self, "eval_opponents", tuple(self.eval_opponents))
        object.__setattr__(self, "opponents", tuple(self.opponents))
        for name in ("num_envs", "steps", "actors", "rounds", "batch_size", "epochs",
                     "torch_threads", "checkpoint_every", "eval_deals", "teacher_decisions"):
            v = getattr(self, name)
            if not isinstance(v, int) or isinstance(v, bool) or v < 1:
                raise ValueError(f"training setting {name} must be a positive integer, "
                                 f"got {v!r}")
        if not isinstance(self.seed, int) or not 0 <= self.seed < 1 << 63:
            raise ValueError(f"training setting seed must be an integer in [0, 2**63), "
                             f"got {self.seed!r}")
        for name in ("eval_every", "teacher_rounds"):
            v = getattr(self, name)
            if not isinstance(v, int) or isinstance(v, bool) or v < 0:
                raise ValueError(f"training setting {name} must be 0 or more, got {v!r}")
        from .teacher import TEACHERS

        if self.teacher is not None and self.teacher not in TEACHERS:
            raise ValueError(f"training setting teacher must be one of {', '.join(TEACHERS)} "
                             f"(or null), got {self.teacher!r}")
        if self.teacher_rounds and self.teacher is None:
            raise ValueError("training setting teacher_rounds needs a teacher "
                             "(e.g. \"teacher\": \"expert\")")
        if not self.hidden or not all(isinstance(h, int) and h >= 1 for h in self.hidden):
            raise ValueError(f"training setting hidden must be a list of positive widths, "
                             f"got {list(self.hidden)!r}")
        for name in ("epsilon",):
            if not 0 <= getattr(self, name) <= 1:
                raise ValueError(f"training setting {name} must be in [0, 1]")
        for name in ("lr", "max_grad_norm"):
            if not getattr(self, name) > 0:
                raise ValueError(f"training setting {name} must be positive")
        if self.teacher_lr is not None and not self.teacher_lr > 0:
            raise ValueError("training setting teacher_lr must be positive (or null: lr)")
        if self.actor_mode not in ACTOR_MODES:
            raise ValueError(f"training setting actor_mode must be one of "
                             f"{', '.join(ACTOR_MODES)}, got {self.actor_mode!r}")
        if self.device not in ("auto", "cpu", "cuda"):
            raise ValueError(f"training setting device must be auto, cpu or cuda, "
                             f"got {self.device!r}")
        from ..agents import parse_agents

        parse_agents(list(self.eval_opponents), where="bot", what="eval_opponents",
                     place="the evaluation (VecEnv opponents)")
        if not self.opponents:
            raise ValueError("training setting opponents must name at least one")
        parse_agents([o for o in self.opponents if o != "self"], where="bot",
                     what="opponents", place="training (VecEnv opponents, or 'self')")

    @classmethod
    def from_dict(cls, data: dict) -> "TrainConfig":
        if not isinstance(data, dict):
            raise ValueError("a training config is a JSON object of settings")
        known = [f.name for f in fields(cls)]
        for key in data:
            if key not in known:
                raise ValueError(f"unknown training setting {key!r}; known: {', '.join(known)}")
        return cls(**data)

    @classmethod
    def shipped(cls) -> "TrainConfig":
        """The settings of the run that trained the weights shipped in the package (plain
        ``dmc``): ``weights/dmc.json`` beside them, what ``guandan-fast train`` takes by
        default.

        >>> c = TrainConfig.shipped()
        >>> c.teacher, c.teacher_rounds == c.rounds
        ('expert', True)
        """
        return cls.load(os.path.join(os.path.dirname(os.path.abspath(__file__)), "weights",
                                     "dmc.json"))

    @classmethod
    def load(cls, path) -> "TrainConfig":
        """The settings of a JSON file; ValueError naming the file for a bad one."""
        name = os.fspath(path)
        try:
            with open(name, encoding="utf-8") as f:
                data = json.load(f)
        except OSError as exc:
            raise ValueError(f"{name}: cannot read ({exc.strerror})") from None
        except json.JSONDecodeError as exc:
            raise ValueError(f"{name}: not JSON ({exc})") from None
        try:
            return cls.from_dict(data)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{name}: {exc}") from None

    def to_dict(self) -> dict:
        d = asdict(self)
        d["hidden"], d["eval_opponents"] = list(self.hidden), list(self.eval_opponents)
        d["opponents"] = list(self.opponents)
        return d
