"""Adapters to the reinforcement-learning frameworks people already use.

Each submodule imports its framework, so import only the one you need (``import guandan_fast``
and ``import guandan_fast.envs`` import none of them):

* ``guandan_fast.envs.pettingzoo``: ``env()``/``raw_env``, a PettingZoo AEC environment;
* ``guandan_fast.envs.gymnasium``: ``GuandanEnv`` (one learner, the other seats built-in bots)
  and ``GuandanVectorEnv`` (a ``gymnasium.vector.VectorEnv`` over ``guandan_fast.VecEnv``);
* ``guandan_fast.envs.openspiel``: the ``python_guandan`` game for ``pyspiel``.

Conventions shared by all of them (spaces, rewards, what each maps to) are in docs/envs.md.
"""
