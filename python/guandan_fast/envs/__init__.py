"""Adapters to the reinforcement-learning frameworks people already use.

Each submodule imports its framework, so import only the one you need (``import guandan_fast``
and ``import guandan_fast.envs`` import none of them):

* ``guandan_fast.envs.pettingzoo.guandan_v0``: ``env()``/``raw_env``, a PettingZoo AEC
  environment (versioned as PettingZoo's own environments are);
* ``guandan_fast.envs.gymnasium``: ``GuandanEnv`` (one learner, the other seats built-in bots;
  registered as ``gymnasium.make("guandan_fast/Guandan-v0")``) and ``GuandanVectorEnv`` (a
  ``gymnasium.vector.VectorEnv`` over ``guandan_fast.VecEnv``);
* ``guandan_fast.envs.openspiel``: the ``python_guandan`` game for ``pyspiel``.

Conventions shared by all of them (spaces, rewards, what each maps to) are in docs/envs.md.
"""
