"""Game records as JSON Lines: one match per record, replayable and readable.

A record is a header line and then one line per hand (docs/design.md deals and moves):

* header: ``{"format": "guandan-fast", "version": 1, "rules": {...}, "seed": S,
  "setup": null | {...}}`` (``setup`` holds the ``Game.setup`` arguments of a match that
  started from a constructed hand; null for ``Game(seed)``);
* hand: ``{"hand": i, "level": L, "declarer": team | null, "levels_before": [a, b],
  "deal": [[codes of seat 0], ...], "anti_tribute": bool,
  "tribute": [[payer, receiver, card], ...], "back": [[receiver, payer, card], ...],
  "moves": [[seat, platform action], ...], "finish_order": [...] | null,
  "levels_after": [a, b] | null}`` (``null`` for a hand still being played).

Several records may follow each other in one file (each starts with its header line).
Replaying checks the header, every deal against the generator, every move for legality and
every hand's outcome; any disagreement raises ``ValueError`` naming the line.

>>> from guandan_fast.game import Game
>>> g = Game(seed=7)
>>> for _ in range(10):
...     g.play_index(0)
>>> lines = g.to_record()
>>> json.loads(lines[0])["seed"], json.loads(lines[1])["hand"]
(7, 0)
>>> replay(lines, Game) == g
True
>>> replay([lines[0], lines[1].replace('"hand": 0', '"hand": 3')], Game)
Traceback (most recent call last):
...
ValueError: record line 2: hand number 3, expected 0
"""

from __future__ import annotations

import json
import os
from typing import Iterable

from .cards import level_char, sort_cards
from .moves import Move
from .rules import Rules

FORMAT = "guandan-fast"
VERSION = 1

__all__ = ["FORMAT", "VERSION", "game_to_lines", "write", "read", "replay", "render"]


def _origin_game(game_cls, seed, rules, setup):
    if setup is None:
        return game_cls(seed, rules)
    return game_cls.setup(setup["hands"], levels=tuple(setup["levels"]),
                          declarer=setup["declarer"],
                          previous_finish=setup["previous_finish"], leader=setup["leader"],
                          seed=seed, rules=rules)


def _exchange(game) -> tuple[list, list, bool]:
    """Tribute and returns of the current hand as everyone sees them once it is done."""
    obs = game.observation(0)
    return ([list(t) for t in obs["tribute"]], [list(b) for b in obs["back"]],
            obs["anti_tribute"])


def game_to_lines(game) -> list[str]:
    """The record of a compiled ``Game`` (its whole match so far) as JSON strings.

    The match is replayed from its start to recover each hand's deal and exchange.
    """
    setup = game._origin_info()
    header = {"format": FORMAT, "version": VERSION, "rules": game.rules.to_dict(),
              "seed": game.seed, "setup": setup}
    lines = [json.dumps(header)]
    replica = _origin_game(type(game), game.seed, game.rules, setup)
    results = game.results
    for i, moves in enumerate(game._moves_by_hand()):
        line = {"hand": i, "level": replica.level, "declarer": replica.declarer,
                "levels_before": list(replica.levels),
                "deal": [list(replica.hand(p)) for p in range(4)]}
        tribute, back, anti = _exchange(replica)
        for seat, move in moves:
            exchanging = replica.phase in ("tribute", "back")
            replica.play(move, seat=seat)
            if exchanging and replica.phase == "play":
                tribute, back, anti = _exchange(replica)  # the exchange just completed
        done = i < len(results)
        line.update({"anti_tribute": anti, "tribute": tribute, "back": back,
                     "moves": [[seat, move.to_platform()] for seat, move in moves],
                     "finish_order": results[i]["finish_order"] if done else None,
                     "levels_after": list(results[i]["levels"]) if done else None})
        lines.append(json.dumps(line))
    return lines


def write(path: str | os.PathLike, games, append: bool = False) -> None:
    """Write the records of some games (one after another) to a JSON Lines file."""
    with open(path, "a" if append else "w", encoding="utf-8") as f:
        for g in games:
            for line in game_to_lines(g):
                f.write(line + "\n")


def _lines(path_or_lines) -> list[str]:
    if isinstance(path_or_lines, (str, os.PathLike)) and not str(path_or_lines).lstrip().startswith("{"):
        with open(path_or_lines, encoding="utf-8") as f:
            return f.read().splitlines()
    if isinstance(path_or_lines, str):
        return path_or_lines.splitlines()
    return [ln.decode() if isinstance(ln, bytes) else ln for ln in path_or_lines]


def read(path_or_lines) -> list[tuple[dict, list[tuple[int, dict]]]]:
    """Parse a record file: a list of ``(header, [(line number, hand dict), ...])`` per match.

    >>> read(['{"format": "guandan-fast", "version": 2}'])
    Traceback (most recent call last):
    ...
    ValueError: record line 1: unsupported record version 2 (this is version 1)
    """
    matches = []
    for n, text in enumerate(_lines(path_or_lines), start=1):
        if not text.strip():
            continue
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"record line {n}: not JSON ({exc.msg})") from None
        if not isinstance(obj, dict):
            raise ValueError(f"record line {n}: expected a JSON object")
        if "format" in obj:
            if obj.get("format") != FORMAT:
                raise ValueError(f"record line {n}: not a {FORMAT} record header")
            if obj.get("version") != VERSION:
                raise ValueError(f"record line {n}: unsupported record version "
                                 f"{obj.get('version')!r} (this is version {VERSION})")
            for key in ("rules", "seed"):
                if key not in obj:
                    raise ValueError(f"record line {n}: header without {key!r}")
            matches.append((obj, []))
        else:
            if not matches:
                raise ValueError(f"record line {n}: a hand line before any header")
            matches[-1][1].append((n, obj))
    if not matches:
        raise ValueError("empty record: no header line")
    return matches


def replay(path_or_lines, game_cls, match: int = 0):
    """Replay match ``match`` of a record with ``game_cls`` (e.g. the compiled ``Game``),
    checking everything; returns the game in the recorded state."""
    matches = read(path_or_lines)
    if not 0 <= match < len(matches):
        raise ValueError(f"the record holds {len(matches)} match(es); no match {match}")
    header, hands = matches[match]
    try:
        rules = Rules.from_dict(header["rules"])
    except (TypeError, ValueError) as exc:
        raise ValueError(f"record header: bad rules: {exc}") from None
    try:
        game = _origin_game(game_cls, header["seed"], rules, header.get("setup"))
    except (TypeError, ValueError, KeyError) as exc:
        raise ValueError(f"record header: cannot start the match: {exc!r}") from None
    for idx, (n, h) in enumerate(hands):
        def bad(msg):
            return ValueError(f"record line {n}: {msg}")

        if h.get("hand") != game.hand_number or game.is_over:
            if game.is_over:
                raise bad("a hand after the end of the match")
            raise bad(f"hand number {h.get('hand')!r}, expected {game.hand_number}")
        if idx > 0 and game.history:
            raise bad("the previous hand did not end")
        for key, want in (("level", game.level), ("declarer", game.declarer),
                          ("levels_before", list(game.levels))):
            if h.get(key) != want:
                raise bad(f"{key} {h.get(key)!r} does not match the replay ({want!r})")
        deal = h.get("deal")
        if (not isinstance(deal, list) or len(deal) != 4
                or any(not isinstance(d, list) for d in deal)):
            raise bad("deal must be four card lists")
        for p in range(4):
            try:
                recorded = sort_cards(deal[p])
            except (KeyError, TypeError, ValueError):
                raise bad(f"deal of seat {p} has a bad card code") from None
            if recorded != game.hand(p):
                raise bad(f"deal of seat {p} does not match the generator's deal")
        moves = h.get("moves")
        if not isinstance(moves, list):
            raise bad("moves must be a list")
        for j, entry in enumerate(moves):
            if not isinstance(entry, list) or len(entry) != 2:
                raise bad(f"move {j}: expected [seat, action], got {entry!r}")
            seat, action = entry
            try:
                game.play(action, seat=seat)
            except (TypeError, ValueError) as exc:
                raise bad(f"move {j} {entry!r}: {exc}") from None
            if game.hand_number != h["hand"] and j != len(moves) - 1:
                raise bad(f"move {j}: the hand ended but {len(moves) - j - 1} moves follow")
        ended = game.hand_number != h["hand"] or game.is_over
        if h.get("finish_order") is None:
            if ended:
                raise bad("the hand ended but the line has no finish_order")
            if idx != len(hands) - 1:
                raise bad("an unfinished hand that is not the last line of its match")
            continue
        if not ended:
            raise bad("finish_order given but the moves do not end the hand")
        res = game.results[h["hand"]]
        if h["finish_order"] != res["finish_order"]:
            raise bad(f"finish_order {h['finish_order']!r} does not match the replay "
                      f"({res['finish_order']!r})")
        if h.get("levels_after") != list(res["levels"]):
            raise bad(f"levels_after {h.get('levels_after')!r} does not match the replay "
                      f"({list(res['levels'])!r})")
    return game


def _fmt_move(move: Move) -> str:
    return "PASS" if move.is_pass else f"{move.type} {move.rank}: {' '.join(move.cards)}"


def render(path_or_lines, hand: int | None = None, match: int = 0) -> str:
    """A readable account of a recorded match (or of one hand of it), for
    ``guandan-fast replay FILE``.

    >>> from guandan_fast.game import Game
    >>> g = Game(seed=7); g.play_index(0)
    >>> print(render(g.to_record()).splitlines()[0])
    match: seed 7, rules Rules()
    """
    matches = read(path_or_lines)
    if not 0 <= match < len(matches):
        raise ValueError(f"the record holds {len(matches)} match(es); no match {match}")
    header, hands = matches[match]
    rules = Rules.from_dict(header["rules"])
    out = [f"match: seed {header['seed']}, rules {rules!r}"]
    if header.get("setup"):
        out.append("started from a constructed deal")
    if hand is not None and not any(h.get("hand") == hand for _, h in hands):
        raise ValueError(f"the record has no hand {hand}")
    from .game import Game

    # Replayed alongside, to know where tricks start (and to check the record).
    game = _origin_game(Game, header["seed"], rules, header.get("setup"))
    for _, h in hands:
        if hand is not None and h.get("hand") != hand:
            for seat, action in h["moves"]:
                game.play(action, seat=seat)
            continue
        lv = h["level"]
        decl = h["declarer"]
        out.append("")
        out.append(f"== hand {h['hand']}: level {level_char(lv)}"
                   + (f", declarer team {decl}" if decl is not None else ", first hand")
                   + f", levels {h['levels_before'][0]}/{h['levels_before'][1]}")
        for p, cards in enumerate(h["deal"]):
            out.append(f"  seat {p} (team {p % 2}): {' '.join(sort_cards(cards))}")
        if h.get("anti_tribute"):
            out.append("  anti-tribute: the paying side holds both big jokers")
        for payer, receiver, card in h.get("tribute", []):
            out.append(f"  tribute: seat {payer} pays {card} to seat {receiver}")
        for receiver, payer, card in h.get("back", []):
            out.append(f"  return: seat {receiver} gives {card} back to seat {payer}")
        trick = 0
        for seat, action in h["moves"]:
            lead = game.phase == "play" and game.observation(seat)["top"] is None
            game.play(action, seat=seat)
            move = game_move(action, lv)
            if move.type in ("tribute", "back"):
                continue
            if lead:
                trick += 1
                out.append(f"  trick {trick}")
            out.append(f"    seat {seat}: {_fmt_move(move)}")
        if h.get("finish_order") is not None:
            names = ["1st", "2nd", "3rd", "4th"]
            order = ", ".join(f"{names[i]} seat {s}" for i, s in enumerate(h["finish_order"]))
            out.append(f"  finish: {order}; levels after {h['levels_after'][0]}/"
                       f"{h['levels_after'][1]}")
        else:
            out.append("  (hand in progress)")
    return "\n".join(out)


def game_move(action, level: int) -> Move:
    """The Move of a recorded platform action."""
    return Move.from_platform(action, level)
