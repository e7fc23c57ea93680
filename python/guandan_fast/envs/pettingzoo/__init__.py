"""PettingZoo environments (import ``pettingzoo``), versioned as PettingZoo's own are:
``guandan_v0`` (``env()``, ``raw_env``; docs/envs.md).

>>> from guandan_fast.envs.pettingzoo import guandan_v0
>>> guandan_v0.raw_env.metadata["name"]
'guandan_v0'

``from guandan_fast.envs.pettingzoo import env, raw_env`` is the current version's (kept for
code written before the versioned name).
"""

from . import guandan_v0
from .guandan_v0 import env, raw_env

__all__ = ["guandan_v0", "env", "raw_env"]
