"""Self-play rollouts over ``VecEnv`` (no Ray needed): ``RolloutWorker`` collects
trajectories of a picklable numpy policy as numpy arrays, ``LinearPolicy`` is such a policy,
``hand_returns`` the Monte-Carlo return of each decision. ``guandan_fast.distributed`` runs
the same workers as Ray actors (``rollout_actors`` / ``collect``); docs/learning.md.

>>> import numpy as np
>>> w = RolloutWorker(LinearPolicy(np.zeros((536, 501), np.float32)), 2, seed=1)
>>> traj = w.rollout(3)
>>> traj["obs"].shape, traj["actions"].shape
((3, 2, 536), (3, 2))
"""

from __future__ import annotations

from .validate import check_callable, check_count

__all__ = ["RolloutWorker", "LinearPolicy", "hand_returns"]


class LinearPolicy:
    """A picklable numpy policy for ``VecEnv`` batches: softmax over the legal actions of
    ``obs @ weights`` (``weights``: ``float32[D, N_ACTIONS]``, ``D`` the encoder's size); with
    ``greedy=True``, or without ``rng``, the highest legal logit instead of a sample. One
    decision (``obs float32[D]``, ``mask bool[N_ACTIONS]``, no ``rng``) gives one action id:
    the form of a policy agent (``guandan_fast.agents.policy_agent``).

    >>> import numpy as np
    >>> pol = LinearPolicy(np.zeros((3, 4), np.float32))
    >>> mask = np.array([[False, True, False, True]])
    >>> int(pol(np.ones((1, 3), np.float32), mask, np.random.default_rng(0))[0]) in (1, 3)
    True
    >>> int(pol(np.ones(3, np.float32), mask[0]))
    1
    """

    def __init__(self, weights, greedy: bool = False) -> None:
        import numpy as np

        w = np.asarray(weights, dtype=np.float32)
        if w.ndim != 2:
            raise ValueError(f"weights must be a 2-d array [D, N_ACTIONS], got shape {w.shape}")
        self.weights, self.greedy = w, bool(greedy)

    def __call__(self, obs, mask, rng=None):
        import numpy as np

        logits = obs @ self.weights
        logits = np.where(mask, logits, -np.inf)
        if not self.greedy and rng is not None:
            # Gumbel-max: argmax(logits + Gumbel noise) is a softmax sample.
            logits = logits + rng.gumbel(size=logits.shape).astype(np.float32)
        return np.argmax(logits, axis=-1).astype(np.int32)


class RolloutWorker:
    """A ``VecEnv`` and a policy: ``rollout(steps)`` collects ``steps`` decisions of every
    table as numpy arrays. Used as it is in one process, or as a Ray actor through
    ``rollout_actors``.

    ``policy(obs, mask, rng) -> actions``: a picklable callable (numpy) taking the batch's
    ``obs float32[B, D]`` and ``mask bool[B, N_ACTIONS]`` and this worker's
    ``numpy.random.Generator`` (seeded from ``seed``), returning ``B`` legal action ids.
    ``env_kwargs`` go to ``VecEnv`` (``learners``, ``opponents``, ``encoder``, ``rules``,
    ``threads``); the action mode is ``'abstract'``.

    ``rollout(steps)`` returns a dict of arrays, ``T = steps`` rows per table (table ``b`` is
    column ``b``): ``obs float32[T, B, D]``, ``mask bool[T, B, N_ACTIONS]``,
    ``actions int32[T, B]``, ``seat int8[T, B]`` (the learner who acted), ``phase int8[T, B]``,
    ``rewards float32[T, B, 4]`` (per seat, the rewards of the hands of table ``b`` that ended
    while step ``t`` was applied: the action and the bots' moves up to the next learner
    decision; docs/learning.md's convention), ``hand_over`` and ``match_over bool[T, B]``.
    Rollouts continue where the previous one stopped (hands and matches run across them).
    """

    def __init__(self, policy, num_envs: int, seed: int = 0, **env_kwargs) -> None:
        import numpy as np

        from .vecenv import VecEnv

        check_callable(policy, "policy")
        if env_kwargs.get("action_mode", "abstract") != "abstract":
            raise ValueError("RolloutWorker plays the abstract action space: action_mode must "
                             f"be 'abstract', got {env_kwargs['action_mode']!r}")
        self.env = VecEnv(num_envs, seed=seed, **env_kwargs)
        self.policy = policy
        self.rng = np.random.default_rng(seed & 0xFFFFFFFFFFFFFFFF)
        self.batch = self.env.reset()

    def set_policy(self, policy) -> None:
        """Replace the policy (new weights); the environments go on as they are."""
        check_callable(policy, "policy")
        self.policy = policy

    def rollout(self, steps: int) -> dict:
        import numpy as np

        check_count(steps, "steps", 1)
        b = self.batch
        n, d = b.obs.shape
        out = {
            "obs": np.empty((steps, n, d), np.float32),
            "mask": np.empty((steps,) + b.mask.shape, np.bool_),
            "actions": np.empty((steps, n), np.int32),
            "seat": np.empty((steps, n), np.int8),
            "phase": np.empty((steps, n), np.int8),
            "rewards": np.zeros((steps, n, 4), np.float32),
            "hand_over": np.zeros((steps, n), np.bool_),
            "match_over": np.zeros((steps, n), np.bool_),
        }
        for t in range(steps):
            b = self.batch
            # The batch's arrays are views valid until the next step: copied first.
            out["obs"][t] = b.obs
            out["mask"][t] = b.mask
            out["seat"][t] = b.seat
            out["phase"][t] = b.phase
            actions = np.asarray(self.policy(b.obs, b.mask, self.rng))
            if actions.shape != (n,) or actions.dtype.kind not in "iu":
                raise ValueError(f"policy must return {n} integer action ids (shape ({n},)), "
                                 f"got shape {actions.shape} of {actions.dtype}")
            self.env.step(actions)
            out["actions"][t] = actions
            self.batch = self.env.pending()
            res = self.env.drain_results()
            env_id = np.asarray(res["env_id"], dtype=np.intp)
            if env_id.size:
                np.add.at(out["rewards"][t], env_id, res["reward"])
                out["hand_over"][t, env_id] = True
                out["match_over"][t, env_id[np.asarray(res["match_over"], bool)]] = True
        return out


def hand_returns(traj: dict):
    """``float32[T, B]``: for each decision, the reward its seat received at the end of the
    hand it was made in (NaN when that hand had not ended by the rollout's last step): the
    Monte-Carlo return DanZero trains on.

    >>> import numpy as np
    >>> traj = {"seat": np.array([[0], [1], [0]], np.int8),
    ...         "hand_over": np.array([[False], [True], [False]]),
    ...         "rewards": np.array([[[0, 0, 0, 0]], [[2, -2, 2, -2]], [[0, 0, 0, 0]]],
    ...                             np.float32)}
    >>> hand_returns(traj)[:, 0].tolist()
    [2.0, -2.0, nan]
    """
    import numpy as np

    seat, over, rewards = traj["seat"], traj["hand_over"], traj["rewards"]
    steps, n = seat.shape
    out = np.full((steps, n), np.nan, np.float32)
    cur = np.full((n, 4), np.nan, np.float32)
    cols = np.arange(n)
    for t in range(steps - 1, -1, -1):
        cur[over[t]] = rewards[t][over[t]]
        out[t] = cur[cols, seat[t]]
    return out
