"""The DMC trainer: self-play rounds by the actors, Monte-Carlo regression by the learner.

Each round every actor plays ``selfplay.play_round`` with the learner's current weights (as a
numpy ``QNet``: actors need no PyTorch), the learner concatenates their samples in actor
order and fits ``Q(state, action)`` to the targets (mean squared error, Adam, ``epochs``
passes in a seeded order), and the next round's actors get the new weights. Everything a
round does follows from the seed, the round number and the weights, so the run is the same
with the actors in this thread, in threads, in processes or on Ray, and a run resumed from
a checkpoint continues bit for bit (checkpoints are taken between rounds; Ctrl-C saves the
last finished round).

The first ``teacher_rounds`` rounds of a run with a ``teacher`` are teacher rounds instead:
the actors collect the teacher's decisions (``teacher.collect``) and the learner fits the
network's ranking of each decision's candidates to the teacher's move
(``Learner.imitate``); they are checkpointed and resumed as any round.

A run directory holds ``checkpoint.pt`` (model, optimizer, settings, history), ``dmc.npz``
(the exported weights: ``dmc:DIR/dmc.npz`` plays), ``log.jsonl`` (one line per round and per
evaluation) and ``curve.svg`` (win rates over frames).

>>> import tempfile
>>> from guandan_fast.learn.config import TrainConfig
>>> cfg = TrainConfig(hidden=(16,), num_envs=4, steps=20, rounds=2, eval_every=0)
>>> with tempfile.TemporaryDirectory() as d:
...     t = Trainer(cfg, d, progress=None)
...     t.run()
...     t.round, t.frames > 0
(2, True)
"""

from __future__ import annotations

import copy
import json
import os
import time

import numpy as np
import torch

from .config import TrainConfig
from .curve import curve_svg
from .evaluate import duplicate
from .model import QModel
from .qnet import QNet
from .selfplay import RoundSettings, play_round, round_seed
from .teacher import collect

__all__ = ["Trainer", "Learner", "export", "CHECKPOINT_FORMAT"]

CHECKPOINT_FORMAT = "guandan-fast-dmc-checkpoint-1"

#: A teacher round's weight of the value term (the teacher's move's Q against the hand's
#: reward) beside the ranking term. At 1 the noisy ±3 rewards dominated the loss and the
#: network agreed with the expert on 50 % of 1.5 M decisions; at 0.1 it agreed on 63 % of
#: 0.5 M, as with the ranking term alone (docs/training.md "Starting from a teacher").
VALUE_WEIGHT = 0.1


class Learner:
    """The torch model and its optimizer; ``step(batch)`` is one gradient step on a batch
    (a dict of ``state``, ``cards``, ``ids``, ``target`` arrays) and returns its loss."""

    def __init__(self, config: TrainConfig, device: str = "cpu") -> None:
        self.config = config
        self.device = torch.device(device)
        self.model = QModel.from_qnet(QNet.initial(config.hidden, seed=config.seed)).to(
            self.device)
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=config.lr)

    def tensors(self, samples: dict) -> tuple:
        d = self.device
        return (torch.from_numpy(np.ascontiguousarray(samples["state"], np.float32)).to(d),
                torch.from_numpy(samples["cards"].astype(np.float32)).to(d),
                torch.from_numpy(samples["ids"].astype(np.int64)).to(d),
                torch.from_numpy(np.ascontiguousarray(samples["target"], np.float32)).to(d))

    def step(self, batch) -> float:
        state, cards, ids, target = batch if isinstance(batch, tuple) else self.tensors(batch)
        q = self.model(state, cards, ids)
        return self._descend(torch.mean((q - target) ** 2))

    def _descend(self, loss, lr: float | None = None) -> float:
        # One optimizer for both kinds of round, its step size set per step: the Adam
        # moments carry from the teacher rounds into self-play (and into checkpoints).
        for group in self.optimizer.param_groups:
            group["lr"] = self.config.lr if lr is None else lr
        self.optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.config.max_grad_norm)
        self.optimizer.step()
        return float(loss.item())

    def imitate(self, data: dict, round_index: int, value_weight: float = 1.0) -> tuple:
        """A teacher round's passes over its decisions (``teacher.collect``'s arrays) in a
        seeded order, ``batch_size`` decisions a step: cross-entropy of the softmax of the
        decision's Q values against the teacher's candidate (the network learns to rank as
        the teacher does) plus the squared error of the teacher's candidate's Q against the
        hand's reward (so the values stay on the scale the Monte-Carlo rounds regress to).
        Returns the mean loss and the agreement: how often the teacher's candidate was the
        network's best (ties count) before each step, on decisions it had not seen."""
        d = self.device
        offsets, label = data["offsets"], data["label"]
        state = torch.from_numpy(data["state"]).to(d)
        cards = torch.from_numpy(data["cand_cards"].astype(np.float32)).to(d)
        ids = torch.from_numpy(data["cand_ids"].astype(np.int64)).to(d)
        target = torch.from_numpy(data["target"]).to(d)
        n = len(label)
        rng = np.random.default_rng(round_seed(self.config.seed, round_index, 0, 2))
        losses, agree = [], []
        for _ in range(self.config.epochs):
            order = rng.permutation(n)
            for i in range(0, n, self.config.batch_size):
                idx = order[i:i + self.config.batch_size]
                counts = offsets[idx + 1] - offsets[idx]
                b, c = len(idx), int(counts.sum())
                first = np.cumsum(counts) - counts           # each list's start in the batch
                owner = np.repeat(np.arange(b), counts)
                cand = np.repeat(offsets[idx] - first, counts) + np.arange(c)
                owner_t = torch.from_numpy(owner).to(d)
                cand_t = torch.from_numpy(cand).to(d)
                q = self.model(state[torch.from_numpy(idx).to(d)], cards[cand_t], ids[cand_t],
                               owner_t)
                top = torch.full((b,), -torch.inf, device=d).scatter_reduce(
                    0, owner_t, q.detach(), "amax")
                lse = torch.log(torch.zeros(b, device=d).index_add(
                    0, owner_t, torch.exp(q - top[owner_t]))) + top
                q_teacher = q[torch.from_numpy(first + label[idx]).to(d)]
                agree.append(float((q_teacher.detach() >= top).float().mean()))
                t = target[torch.from_numpy(idx).to(d)]
                losses.append(self._descend(
                    torch.mean(lse - q_teacher) + value_weight * torch.mean((q_teacher - t) ** 2),
                    self.config.teacher_lr))
        return float(np.mean(losses)), float(np.mean(agree))

    def fit(self, samples: dict, round_index: int) -> float:
        """The round's passes over its samples in a seeded order; the mean loss."""
        tensors = self.tensors(samples)
        n = len(samples["target"])
        rng = np.random.default_rng(round_seed(self.config.seed, round_index, 0, 2))
        losses = []
        for _ in range(self.config.epochs):
            order = rng.permutation(n)
            for i in range(0, n, self.config.batch_size):
                idx = torch.from_numpy(order[i:i + self.config.batch_size]).to(self.device)
                losses.append(self.step(tuple(t[idx] for t in tensors)))
        return float(np.mean(losses)) if losses else float("nan")

    def qnet(self) -> QNet:
        return self.model.to_qnet()


def _blas_threads(n: int):
    """Limits numpy's BLAS to ``n`` threads (threaded BLAS on the small matrices of a step,
    beside other busy processes, ran 20x slower than one thread)."""
    from threadpoolctl import threadpool_limits

    return threadpool_limits(limits=n, user_api="blas")


def _quiet_worker(threads: int) -> None:
    """A pool process: Ctrl-C is the parent's to handle; BLAS on ``threads`` threads."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=threads, user_api="blas")


def _play_round_limited(threads: int, *args) -> dict:
    """``play_round`` with BLAS on ``threads`` threads (a Ray worker's process)."""
    with _blas_threads(threads):
        return play_round(*args)


class _Actors:
    """Runs a round's ``play_round`` calls where the settings say; results in actor order."""

    def __init__(self, config: TrainConfig) -> None:
        self.config = config
        self.mode = config.actor_mode
        self.settings = [RoundSettings(config.num_envs, config.steps, config.epsilon, o)
                         for o in config.opponents]
        self.pool = None
        self.started_ray = False
        if self.mode == "threads":
            from concurrent.futures import ThreadPoolExecutor

            self.pool = ThreadPoolExecutor(config.actors)
        elif self.mode == "processes":
            import multiprocessing

            self.pool = multiprocessing.get_context("spawn").Pool(
                config.actors, _quiet_worker, (config.torch_threads,))
        elif self.mode == "ray":
            import ray

            if not ray.is_initialized():     # a connection made before is used as it is
                ray.init(address=config.ray_address, include_dashboard=False,
                         log_to_driver=False)
                self.started_ray = True
            self.remote = {play_round: ray.remote(num_cpus=1)(_play_round_limited),
                           collect: ray.remote(num_cpus=1)(collect)}

    def play(self, net: QNet, round_index: int) -> list:
        settings = self.settings[round_index % len(self.settings)]
        args = [(net, settings, self.config.seed, round_index, a)
                for a in range(self.config.actors)]
        if self.mode == "ray":     # the weights shipped once; BLAS limited in the workers
            import ray

            ref = ray.put(net)
            args = [(self.config.torch_threads, ref, *a[1:]) for a in args]
        return self._map(play_round, args)

    def teach(self, round_index: int) -> list:
        """A teacher round's decisions: each actor collects its share (``teacher.collect``,
        seeded by the run's seed, the round and the actor), in actor order."""
        c = self.config
        share = -(-c.teacher_decisions // c.actors)
        return self._map(collect, [(c.teacher, share, round_seed(c.seed, round_index, a, 4))
                                   for a in range(c.actors)])

    def _map(self, work, args: list) -> list:
        """``work(*a)`` for each ``a`` of ``args`` where the settings say, in order (on Ray,
        ``work``'s remote form in ``self.remote``)."""
        if self.mode == "local":
            return [work(*a) for a in args]
        if self.mode == "threads":
            return list(self.pool.map(lambda a: work(*a), args))
        if self.mode == "processes":
            return self.pool.starmap(work, args)
        import ray

        return ray.get([self.remote[work].remote(*a) for a in args])

    def close(self) -> None:
        if self.mode == "threads":
            self.pool.shutdown()
        elif self.mode == "processes":
            self.pool.terminate()
            self.pool.join()
        elif self.started_ray:
            import ray

            ray.shutdown()


class Trainer:
    """A training run in directory ``out_dir`` (created). ``resume=True`` continues the run
    saved there (its settings; ``config`` may then be None, or must equal them but for
    ``rounds``). ``progress(line)`` gets the progress lines (None: silent)."""

    def __init__(self, config: TrainConfig | None, out_dir, resume: bool = False,
                 progress=print) -> None:
        self.out_dir = os.fspath(out_dir)
        self.progress = progress or (lambda line: None)
        self.round = 0
        self.frames = 0
        self.history: list = []
        saved = None
        if resume:
            saved = load_checkpoint(self.checkpoint_path)
            stored = TrainConfig.from_dict(saved["config"])
            if config is not None:
                _check_resumable(stored, config, saved["round"], self.checkpoint_path)
            config = stored if config is None else config
        elif config is None:
            raise ValueError("a new run needs a config")
        elif os.path.exists(os.path.join(self.out_dir, "checkpoint.pt")):
            raise ValueError(f"{self.out_dir} already holds a run: continue it with --resume, "
                             f"or give another directory")
        self.config = config
        torch.set_num_threads(config.torch_threads)
        device = config.device
        if device == "auto":
            device = "cuda" if torch.cuda.is_available() else "cpu"
        elif device == "cuda" and not torch.cuda.is_available():
            raise ValueError("device 'cuda' asked for, but PyTorch sees no GPU")
        self.device = device
        self.learner = Learner(config, device)
        if saved is not None:
            self.learner.model.load_state_dict(saved["model"])
            self.learner.optimizer.load_state_dict(saved["optimizer"])
            self.round, self.frames = saved["round"], saved["frames"]
            self.history = list(saved["history"])
        os.makedirs(self.out_dir, exist_ok=True)
        # A resumed run's log is its checkpoint's history (rounds after it are played again).
        _write(os.path.join(self.out_dir, "log.jsonl"),
               "".join(json.dumps(h) + "\n" for h in self.history))
        self._snapshot = self._state()

    @property
    def checkpoint_path(self) -> str:
        return os.path.join(self.out_dir, "checkpoint.pt")

    def _state(self) -> dict:
        return {"format": CHECKPOINT_FORMAT, "config": self.config.to_dict(),
                "round": self.round, "frames": self.frames,
                "model": copy.deepcopy(self.learner.model.state_dict()),
                "optimizer": copy.deepcopy(self.learner.optimizer.state_dict()),
                "history": copy.deepcopy(self.history)}

    def save(self, state: dict | None = None) -> None:
        """Write the checkpoint, the exported weights, the log and the curve (of ``state``,
        default the last finished round), each file replaced atomically."""
        state = state or self._snapshot
        tmp = self.checkpoint_path + ".tmp"
        torch.save(state, tmp)
        os.replace(tmp, self.checkpoint_path)
        model = QModel(self.config.hidden)
        model.load_state_dict(state["model"])
        model.to_qnet().save(os.path.join(self.out_dir, "dmc.npz"))
        _write(os.path.join(self.out_dir, "log.jsonl"),
               "".join(json.dumps(h) + "\n" for h in state["history"]))
        _write(os.path.join(self.out_dir, "curve.svg"), curve_svg(state["history"]))

    def evaluate(self) -> dict:
        net = self.learner.qnet()
        row = {"kind": "eval", "round": self.round, "frames": self.frames}
        for opp in self.config.eval_opponents:
            row[opp] = duplicate(net, opp, self.config.eval_deals,
                                 round_seed(self.config.seed, 1 << 30, 0, 3))
        return row

    def run(self, rounds: int | None = None) -> None:
        """Train until ``rounds`` rounds in all (default the config's). Ctrl-C saves the
        last finished round and raises ``KeyboardInterrupt`` (after a progress line)."""
        total = self.config.rounds if rounds is None else rounds
        self._total = total
        actors = None
        try:
            with _blas_threads(self.config.torch_threads):
                actors = _Actors(self.config)
                if self.round == 0 and self.config.eval_every and not self.history:
                    self._record(self.evaluate())
                while self.round < total:
                    self._record(self._round(actors))
                    if self.config.eval_every and self.round % self.config.eval_every == 0:
                        self._record(self.evaluate())
                    if self.round % self.config.checkpoint_every == 0 or self.round == total:
                        self.save()
        except KeyboardInterrupt:
            self.save()
            self.progress(f"stopped: {self._snapshot['round']} rounds, "
                          f"{self._snapshot['frames']:,} frames saved in "
                          f"{self.checkpoint_path} (continue with --resume)")
            raise
        finally:
            if actors is not None:
                actors.close()

    def _round(self, actors: _Actors) -> dict:
        if self.config.teacher is not None and self.round < self.config.teacher_rounds:
            return self._teacher_round(actors)
        r = self.round
        t0 = time.perf_counter()
        outs = actors.play(self.learner.qnet(), r)
        t1 = time.perf_counter()
        samples = {k: outs[0][k] if len(outs) == 1 else np.concatenate([o[k] for o in outs])
                   for k in ("state", "cards", "ids", "target")}
        loss = self.learner.fit(samples, r)
        t2 = time.perf_counter()
        n = len(samples["target"])
        self.round, self.frames = r + 1, self.frames + n
        row = {"kind": "round", "round": self.round, "frames": self.frames, "samples": n,
               "decisions": sum(o["decisions"] for o in outs),
               "hands": sum(o["hands"] for o in outs), "loss": loss,
               "actor_seconds": t1 - t0, "learner_seconds": t2 - t1,
               "engine_seconds": sum(o["engine_seconds"] for o in outs),
               "network_seconds": sum(o["network_seconds"] for o in outs)}
        return row

    def _teacher_round(self, actors: _Actors) -> dict:
        r = self.round
        t0 = time.perf_counter()
        outs = actors.teach(r)
        t1 = time.perf_counter()
        data = _merge_lists(outs)
        loss, agreement = self.learner.imitate(data, r, VALUE_WEIGHT)
        t2 = time.perf_counter()
        n = len(data["label"])
        self.round, self.frames = r + 1, self.frames + n
        return {"kind": "round", "round": self.round, "frames": self.frames, "samples": n,
                "decisions": n, "hands": sum(o["hands"] for o in outs), "loss": loss,
                "teacher": self.config.teacher, "agreement": agreement,
                "actor_seconds": t1 - t0, "learner_seconds": t2 - t1}

    def _record(self, row: dict) -> None:
        """Adds a round's or an evaluation's row to the history, takes the snapshot that
        Ctrl-C saves, then logs and shows the row (so what was shown is what is saved)."""
        self.history.append(row)
        self._snapshot = self._state()
        with open(os.path.join(self.out_dir, "log.jsonl"), "a", encoding="utf-8") as f:
            f.write(json.dumps(row) + "\n")
        self.progress(_line(row, getattr(self, "_total", self.config.rounds)))


def _check_resumable(stored: TrainConfig, config: TrainConfig, done: int, where: str) -> None:
    """A resumed run may change ``rounds``, and ``teacher_rounds`` while every round done so
    far is a teacher round under both (a round's work does not depend on how many teacher
    rounds there are, so the run is still the unbroken run of the new settings)."""
    free = {"rounds": 0, "teacher_rounds": 0}
    if {**config.to_dict(), **free} != {**stored.to_dict(), **free}:
        raise ValueError(f"{where}: the run was made with other settings than the config "
                         f"given (only rounds and teacher_rounds may change)")
    if config.teacher_rounds != stored.teacher_rounds and \
            done > min(config.teacher_rounds, stored.teacher_rounds):
        raise ValueError(f"{where}: teacher_rounds can change only while the run is in its "
                         f"teacher rounds ({done} rounds done, teacher_rounds was "
                         f"{stored.teacher_rounds})")


def _merge_lists(outs: list) -> dict:
    """The actors' ``teacher.collect`` arrays as one (each actor's offsets moved on by the
    candidates before it)."""
    if len(outs) == 1:
        return outs[0]
    shift = np.cumsum([0] + [len(o["cand_ids"]) for o in outs[:-1]])
    merged = {k: np.concatenate([o[k] for o in outs])
              for k in ("state", "cand_cards", "cand_ids", "label", "target")}
    merged["offsets"] = np.concatenate(
        [outs[0]["offsets"][:1]] + [o["offsets"][1:] + d for o, d in zip(outs, shift)])
    return merged


def _line(row: dict, total: int) -> str:
    if row["kind"] == "eval":
        parts = [f"{opp} {v['match_win_rate']:.1%} of {v['matches']} matches "
                 f"[{v['match_ci'][0]:.0%}, {v['match_ci'][1]:.0%}], hands {v['hand_win_rate']:.1%}"
                 for opp, v in row.items() if isinstance(v, dict)]
        return f"eval after {row['frames']:,} frames: " + "; ".join(parts)
    if "teacher" in row:
        return (f"round {row['round']}/{total}  frames {row['frames']:,}  "
                f"learning from {row['teacher']}: "
                f"{row['decisions'] / row['actor_seconds']:,.0f} decisions/s  "
                f"learner {row['samples'] / row['learner_seconds']:,.0f} frames/s  "
                f"loss {row['loss']:.4f}  agreement {row['agreement']:.1%}")
    return (f"round {row['round']}/{total}  frames {row['frames']:,}  "
            f"actors {row['decisions'] / row['actor_seconds']:,.0f} decisions/s  "
            f"learner {row['samples'] / row['learner_seconds']:,.0f} frames/s  "
            f"loss {row['loss']:.4f}")


def _write(path: str, text: str) -> None:
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(path + ".tmp", path)


def load_checkpoint(path) -> dict:
    """A checkpoint's contents; ValueError (one line, naming the file) for anything else."""
    name = os.fspath(path)
    if not os.path.isfile(name):
        raise ValueError(f"{name}: no such checkpoint")
    try:
        state = torch.load(name, map_location="cpu", weights_only=True)
    except Exception as exc:
        raise ValueError(f"{name}: not a training checkpoint ({type(exc).__name__})") from None
    if not isinstance(state, dict) or state.get("format") != CHECKPOINT_FORMAT:
        raise ValueError(f"{name}: not a training checkpoint of this version")
    return state


def export(checkpoint, path) -> QNet:
    """Write the weights of a checkpoint as a weights file (``qnet.load`` reads it, no
    PyTorch needed) and return them."""
    state = load_checkpoint(checkpoint)
    model = QModel(TrainConfig.from_dict(state["config"]).hidden)
    model.load_state_dict(state["model"])
    net = model.to_qnet()
    net.save(path)
    return net

