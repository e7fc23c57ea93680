"""Every agent by name: the one table of agent kinds and the one parser of agent specs.

An agent spec is what a user writes wherever an agent is asked for (``simulate --agents``,
``tournament --agents``, ``serve --bots`` / ``--takeover``, ``connect --agent``,
``VecEnv(opponents=...)``, the framework adapters' opponents):

* ``NAME`` or ``NAME:KEY=VALUE:...``: a compiled agent of ``KINDS`` (``greedy``,
  ``pimc:samples=16``; only the search agents take parameters, docs/search.md);
* ``MODULE:FUNCTION``: a Python agent ``f(observation, legal_moves) -> move``, where
  ``observation`` is ``Game.observation(seat)``, ``legal_moves`` the ``Game.legal_moves()``
  list, and the move returned one of them (a ``Move`` or a platform action);
* ``policy:MODULE:FUNCTION[:encoder=NAME]``: a policy over the learning interface,
  ``policy(obs, mask) -> action id`` on numpy arrays (``obs``: the seat's ``float32``
  observation tensor of the encoder, default ``default``; ``mask``: ``bool[N_ACTIONS]``), as
  ``VecEnv`` trains them; its action plays as ``Game.play_action`` plays it;
* ``dmc:PATH``: a Q-network trained by ``guandan-fast train`` (its exported weights file;
  plain ``dmc``: the weights shipped in the package, docs/training.md), played with numpy.

From Python, a callable is a Python agent, ``policy_agent(fn)`` makes a policy agent, and an
``Agent`` (what ``parse_agent`` returns) is accepted everywhere a spec is.

>>> from guandan_fast.agents import parse_agent
>>> a = parse_agent("pimc:samples=4")
>>> a.kind, a.compiled, a.search_spec[1]["samples"]
('pimc', True, 4)
>>> parse_agent("greedy") == parse_agent(" greedy ")
True
>>> parse_agent("smart")                                   # doctest: +ELLIPSIS
Traceback (most recent call last):
...
ValueError: unknown agent 'smart'; known agents: random, random_compact, greedy, expert, bomber, saver, shedder, keeper, solo, pimc, ismcts; ...
>>> from guandan_fast import Game
>>> g = Game(seed=3)
>>> parse_agent("greedy").move(g) in g.legal_moves()
True
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Callable

from .validate import check_callable

__all__ = ["KINDS", "AgentKind", "Agent", "AgentError", "parse_agent", "parse_agents",
           "policy_agent", "seat_moves", "names", "SPEC_HELP", "STRONGEST", "PRESETS"]


@dataclass(frozen=True)
class AgentKind:
    """One row of the agent table: a kind's name, what it does, and where it can play.

    ``compiled``: played by the compiled match loops (``simulate``, the tournament's
    compiled pairs); ``bot``: a nogil bot without search state (``VecEnv``'s opponents);
    ``platform``: answers at a platform table (``connect``: from the act message alone, or
    on the game its seat's view rebuilds from the messages, net/view.py);
    ``parameters``: takes ``:KEY=VALUE`` parameters.
    """

    name: str
    summary: str
    compiled: bool = True
    bot: bool = True
    platform: bool = True
    parameters: bool = False


#: The agent kinds, in the order they are listed to users. The compiled codes of the compiled
#: kinds are ``bots.AGENT_CODES`` (tests/test_agents.py checks that the two agree). A new
#: compiled bot is an ``AGENT_*`` code in bots.pxd, its entry in ``bots.AGENT_CODES``, its
#: branch in ``bot_choose`` and a row here; every command, ``--help`` and loop then has it.
KINDS: dict[str, AgentKind] = {k.name: k for k in (
    AgentKind("random", "uniform over the complete legal move list"),
    AgentKind("random_compact", "uniform over the compact list (one move per type, rank, size)"),
    AgentKind("greedy", "the greedy heuristic (docs/design.md, Bots)"),
    AgentKind("expert", "the plan-based rule player (docs/expert.md)"),
    # The expert's styles: the gauntlet every strength claim is measured against
    # (docs/expert.md "The gauntlet"; their knobs: expert.STYLE_CHANGES).
    AgentKind("bomber", "the expert's plan, bombing any play it cannot beat from the first trick"),
    AgentKind("saver", "the expert's plan, saving bombs until a seat holds 10 cards or fewer"),
    AgentKind("shedder", "the expert's plan, leading long groups first and never passing "
                         "an opponent it can beat"),
    AgentKind("keeper", "the expert's plan, leading small groups first and never breaking one"),
    AgentKind("solo", "the expert's plan, ignoring its partner (no feeding, beats his plays)"),
    AgentKind("pimc", "perfect-information Monte Carlo search (docs/search.md)",
              bot=False, parameters=True),
    AgentKind("ismcts", "information-set MCTS (docs/search.md)", bot=False, parameters=True),
    AgentKind("python", "MODULE:FUNCTION, f(observation, legal_moves) -> move",
              compiled=False, bot=False),
    AgentKind("policy", "policy:MODULE:FUNCTION[:encoder=NAME], policy(obs, mask) -> action id",
              compiled=False, bot=False, parameters=True),
    AgentKind("dmc", "dmc[:PATH], a learned Q-network's weights file (docs/training.md)",
              compiled=False, bot=False, parameters=True),
)}

#: Named presets: one name for a spec with its settings, usable wherever that spec is.
#: ``strong`` is the strongest setting measured over the gauntlet (docs/search.md "The strong
#: preset"): PIMC over 128 worlds weighted by how likely the opponents' plays of the hand
#: are under the gauntlet's styles, whose opponents play styles drawn from that posterior.
PRESETS = {"strong": "pimc:samples=128:rollout=mix:margin=0.6:worlds=styles:temper=0.25"}

#: The spec of the strongest built-in agent: the default opponent and hint wherever a person
#: plays (``play``, the browser), and the one name docs/search.md measures as the strongest
#: (its worst case over the gauntlet is above the expert's, and it beats the expert).
STRONGEST = "strong"

#: The spec syntax, for every command's ``--help``.
SPEC_HELP = ("agents: " + ", ".join(n for n, k in KINDS.items() if k.compiled)
             + " (search budgets as pimc:samples=16, docs/search.md); presets: "
             + ", ".join(f"{n} = {spec}" for n, spec in PRESETS.items())
             + "; a Python agent as "
               "MODULE:FUNCTION (f(observation, legal_moves) -> move); a learned policy as "
               "policy:MODULE:FUNCTION[:encoder=default|info|danzero] "
               "(policy(obs, mask) -> action id); a trained Q-network as dmc:PATH "
               "(plain dmc: the shipped weights)")

_ENCODERS = ("default", "info", "danzero")


def names(where: str = "compiled") -> tuple:
    """The agent names a place accepts: ``'compiled'``, ``'bot'``, ``'platform'`` or ``'all'``.

    >>> names('bot')
    ('random', 'random_compact', 'greedy', 'expert', 'bomber', 'saver', 'shedder', 'keeper', 'solo')
    """
    if where == "all":
        return tuple(KINDS)
    if where not in ("compiled", "bot", "platform"):
        raise ValueError(f"where must be 'compiled', 'bot', 'platform' or 'all', got {where!r}")
    return tuple(n for n, k in KINDS.items() if getattr(k, where))


class AgentError(RuntimeError):
    """A Python agent raised: the message says which agent at which decision, ``__cause__``
    is its own exception. (An agent that returns something other than a legal move raises
    ``IllegalMoveError``, naming it the same way.)"""


@dataclass(frozen=True)
class Agent:
    """A parsed agent spec (``parse_agent``). ``name``: the spec as written (stripped), or
    ``module:qualname`` of a callable; ``kind``: its row of ``KINDS``; ``code``: the compiled
    agent code (``bots.AGENT_CODES``), None for a Python agent; ``params``: a search agent's
    parameters (or a policy's ``{'encoder': ...}``); ``func``: the Python callable."""

    name: str
    kind: str
    code: int | None = None
    params: tuple = ()
    func: Callable | None = field(default=None, compare=False)

    @property
    def compiled(self) -> bool:
        return self.code is not None

    @property
    def search_spec(self):
        """``(name, parameters)`` of a compiled search agent (what the compiled loops take),
        None for any other agent."""
        if self.kind in ("pimc", "ismcts"):
            return self.kind, dict(self.params)
        return None

    def __str__(self) -> str:
        return self.name

    def _replace_name(self, name: str) -> "Agent":
        from dataclasses import replace

        return replace(self, name=name)

    def move(self, game, seed: int = 0):
        """The move this agent makes for the current player of a compiled ``Game`` (one
        decision; the game is not changed). ``seed`` seeds a random or search agent's draw.

        A Python agent that raises makes this raise ``AgentError`` naming the agent and the
        decision (its own exception as the cause); one that returns something that is not a
        legal move, ``IllegalMoveError`` (named the same way).
        """
        from .moves import IllegalMoveError

        p = game.current_player
        if p is None:
            raise IllegalMoveError("the match is over")
        if self.kind in ("pimc", "ismcts"):
            from .search import choose

            # The parameters themselves: a preset's name is not a search spec.
            spec = ":".join([self.kind] + [f"{k}={v}" for k, v in self.params])
            return choose(game, spec, seed=seed)
        from .expert import STYLE_NAMES, choose  # compiled

        if self.kind in STYLE_NAMES:
            # The compiled decision on the game's own state (it reads the union of the hidden
            # hands, which bots.choose's placeholder hands would not give).
            return choose(game, style=self.kind)
        if self.compiled:
            return _bot_move(game, self.kind, seed)
        if self.kind == "dmc":
            from .learn.agent import move

            return move(game, self.func)
        where = (f"agent {self.name!r} at seat {p}, hand {game.hand_number}, "
                 f"move {len(game.history)} ({game.phase} phase)")
        legal = game.legal_moves()
        try:
            if self.kind == "policy":
                return _policy_move(game, p, self.func, dict(self.params)["encoder"])
            move = self.func(game.observation(p), legal)
        except Exception as exc:
            raise AgentError(f"{where} failed: {type(exc).__name__}: {exc}") from exc
        return _checked_move(move, legal, game.level, where)


def seat_moves(game, seats, match_seed: int):
    """Plays ``game`` (a new ``Game(seed=match_seed, rules=...)``) to its end with agent
    ``seats[p]`` (``Agent``) moving for seat ``p``, and yields each move's words ``(lo, hi)``
    once it is played: the compiled agents through ``tournament_core.BotSeats``, exactly as the
    compiled match loops play them (their streams seeded from ``match_seed``), the others
    through ``Agent.move``. The one match loop of the tournament's and ``simulate``'s Python
    paths; a caller stops it by leaving the loop.

    >>> from guandan_fast import Game
    >>> g = Game(seed=7)
    >>> n = sum(1 for _ in seat_moves(g, parse_agents(["greedy", "random"] * 2), 7))
    >>> g.is_over and n == len(g.action_log())
    True
    """
    from .tournament_core import BotSeats

    kinds = [a.code for a in seats]
    bots = (BotSeats(match_seed, kinds, game.rules, [a.search_spec for a in seats])
            if any(k is not None for k in kinds) else None)
    while not game.is_over:
        agent = seats[game.current_player]
        if agent.compiled:
            lo, hi = bots.choose()
            game.play_words(lo, hi)
        else:
            legal = game.legal_moves()
            i = legal.index(agent.move(game))    # AgentError names a failing agent
            lo, hi = (int(w) for w in legal.array[i])
            game.play_index(i)
        if bots is not None:
            bots.apply(lo, hi)
        yield lo, hi


def _bot_move(game, agent: str, seed: int):
    """A built-in bot's move in a compiled Game, through ``bots.choose`` with exactly what
    the bot reads inside the compiled loops (own hand, level, top play, public counts)."""
    from .bots import choose

    p = game.current_player
    # bots.choose takes counts 0..27 (a receiver holds 28 after a tribute); the bots act only
    # on counts of 6 or fewer (docs/design.md), so capping at 27 changes nothing.
    counts = [min(27, len(game.hand(q))) for q in range(4)]
    disclosure = game.rules.disclosure_threshold
    if game.phase == "play":
        top = game.observation(p)["top"]
        return choose(agent, game.hand(p), level=game.level,
                      top=None if top is None else top[1],
                      top_seat=None if top is None else top[0], seat=p, counts=counts,
                      seed=seed, disclosure=disclosure)
    return choose(agent, game.hand(p), level=game.level, seat=p, counts=counts,
                  moves=list(game.legal_moves()), phase=game.phase, seed=seed,
                  disclosure=disclosure)


def _policy_move(game, p, policy, encoder):
    import numpy as np

    from . import observe
    from .actions import canonical_move

    encode = {"default": observe.observation_tensor, "info": observe.information_state_tensor,
              "danzero": observe.danzero_state}[encoder]
    out = np.asarray(policy(encode(game, p), game.legal_action_mask())).reshape(-1)
    if out.size != 1 or out.dtype.kind not in "iu":
        raise TypeError(f"a policy returns one integer action id, got {out.dtype} of "
                        f"shape {out.shape}")
    return canonical_move(game, int(out[0]))


def _checked_move(move, legal, level, where):
    """The agent's answer as one of the legal moves; IllegalMoveError naming the agent."""
    from .moves import IllegalMoveError, Move

    if isinstance(move, (list, tuple)) and not isinstance(move, Move):
        try:
            move = Move.from_platform(move, level)
        except (TypeError, ValueError) as exc:
            raise IllegalMoveError(f"{where} returned {move!r}: {exc}") from None
    if not isinstance(move, Move) or move not in legal:
        raise IllegalMoveError(f"{where} returned {move!r}, which is not one of the "
                               f"{len(legal)} legal moves")
    return move


def _import_target(spec: str, target: str) -> Callable:
    module, _, attr = target.partition(":")
    if not module or not attr:
        raise ValueError(f"agent {spec!r}: a Python agent is 'module:function'")
    try:
        obj = importlib.import_module(module)
    except ImportError as exc:
        raise ValueError(f"agent {spec!r}: cannot import module {module!r} ({exc})") from None
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise ValueError(f"agent {spec!r}: module {module!r} has no attribute {attr!r}") \
                from None
    if not callable(obj):
        raise ValueError(f"agent {spec!r}: {attr!r} is not callable")
    return obj


def _policy_params(spec: str, parts) -> tuple:
    params = {"encoder": "default"}
    for part in parts:
        key, eq, value = part.partition("=")
        if not eq or key.strip() != "encoder":
            raise ValueError(f"agent {spec!r}: a policy takes only encoder=NAME, got {part!r}")
        if value.strip() not in _ENCODERS:
            raise ValueError(f"agent {spec!r}: encoder must be one of {', '.join(_ENCODERS)}, "
                             f"got {value.strip()!r}")
        params["encoder"] = value.strip()
    return tuple(params.items())


def policy_agent(policy: Callable, encoder: str = "default", name: str | None = None) -> Agent:
    """A policy over the learning interface as an agent: ``policy(obs, mask) -> action id``
    (``obs``: the seat's observation tensor of ``encoder``, ``mask``: ``bool[N_ACTIONS]``).

    >>> import numpy as np
    >>> first_legal = lambda obs, mask: int(np.flatnonzero(mask)[0])
    >>> a = policy_agent(first_legal, name="first")
    >>> from guandan_fast import Game
    >>> g = Game(seed=0); a.move(g) in g.legal_moves()
    True
    """
    check_callable(policy, "policy")
    if encoder not in _ENCODERS:
        raise ValueError(f"encoder must be one of {', '.join(_ENCODERS)}, got {encoder!r}")
    if name is None:
        name = f"policy:{_callable_name(policy)}"
    return Agent(name=name, kind="policy", params=(("encoder", encoder),), func=policy)


def _callable_name(f) -> str:
    return (f"{getattr(f, '__module__', None) or '?'}:"
            f"{getattr(f, '__qualname__', None) or type(f).__qualname__}")


def parse_agent(spec) -> Agent:
    """The ``Agent`` of a spec (the module doc's syntax), a callable (a Python agent) or an
    ``Agent`` (returned as it is). ``ValueError`` names the bad part and the known agents.

    >>> parse_agent("greedy:samples=3")
    Traceback (most recent call last):
    ...
    ValueError: unknown agent 'greedy:samples=3': greedy takes no parameters
    >>> parse_agent("policy:math:floor:encoder=info").params
    (('encoder', 'info'),)
    """
    if isinstance(spec, Agent):
        return spec
    if callable(spec) and not isinstance(spec, str):
        return Agent(name=_callable_name(spec), kind="python", func=spec)
    if not isinstance(spec, str):
        raise TypeError(f"an agent is a name or a callable (or 'module:function'), "
                        f"not {type(spec).__name__}")
    name = spec.strip()
    if name in PRESETS:
        return parse_agent(PRESETS[name])._replace_name(name)
    base, *parts = name.split(":")
    kind = KINDS.get(base)
    if kind is not None and kind.compiled:
        from .bots import AGENT_CODES  # compiled

        if kind.parameters:
            from .search import parse_agent as parse_search  # compiled; names a bad parameter

            _, params = parse_search(name)
            return Agent(name=name, kind=base, code=AGENT_CODES[base],
                         params=tuple(params.items()))
        if parts:
            raise ValueError(f"unknown agent {name!r}: {base} takes no parameters")
        return Agent(name=name, kind=base, code=AGENT_CODES[base])
    if base == "policy" and parts:
        if len(parts) < 2:
            raise ValueError(f"agent {name!r}: a policy is 'policy:MODULE:FUNCTION'")
        func = _import_target(name, f"{parts[0]}:{parts[1]}")
        return Agent(name=name, kind="policy", params=_policy_params(name, parts[2:]),
                     func=func)
    if base == "dmc":
        from .learn.agent import load_spec

        path = ":".join(parts).strip() or None     # a path may itself hold ':'
        try:
            net = load_spec(path)
        except ValueError as exc:
            raise ValueError(f"agent {name!r}: {exc}") from None
        return Agent(name=name, kind="dmc", params=(("path", path),), func=net)
    if parts:
        return Agent(name=name, kind="python", func=_import_target(name, name))
    raise ValueError(f"unknown agent {name!r}; known agents: {', '.join(names())}; "
                     f"presets: {', '.join(PRESETS)}; "
                     f"or a Python agent as 'module:function', "
                     f"or 'policy:module:function'")


def parse_agents(specs, count: int | None = None, where: str = "all",
                 what: str = "agents", place: str = "here") -> tuple:
    """Several agents: a sequence of specs (or ``Agent``s, callables) or one comma-separated
    string; ``count`` of them when given; each one of the kinds ``where`` accepts
    (``names(where)``), else ValueError saying which places play it.

    >>> [a.name for a in parse_agents("greedy, random", 2)]
    ['greedy', 'random']
    >>> parse_agents(["greedy", "pimc"] * 2, 4, where="bot", place="VecEnv")
    Traceback (most recent call last):
    ...
    ValueError: agent 'pimc' cannot play in VecEnv, which takes random, random_compact, greedy, expert, bomber, saver, shedder, keeper, solo
    """
    if isinstance(specs, str):
        specs = [s for s in specs.split(",")]
    try:
        items = list(specs)
    except TypeError:
        raise TypeError(f"{what} must be a list of agents, not {type(specs).__name__}") from None
    if count is not None and len(items) != count:
        raise ValueError(f"{what} must name exactly {count} agents, got {len(items)}")
    out = tuple(parse_agent(s) for s in items)
    allowed = names(where)
    for a in out:
        if a.kind not in allowed:
            raise ValueError(f"agent {a.name!r} cannot play in {place}, which takes "
                             f"{', '.join(allowed)}")
    return out
