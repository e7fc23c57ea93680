"""The compiled record writer (record_lines, simulate_core.record_chunk) against its oracle,
the Python ``records.log_to_lines``: the same bytes for every match, whole or cut anywhere,
under every rules switch that shapes a hand line (tribute, anti-tribute, double-down ties,
returns, upgrades), and the same errors for a bad log."""

import json

import numpy as np
import pytest

from guandan_fast import records
from guandan_fast import simulate_core as core
from guandan_fast.cards import FULL_DECK
from guandan_fast.game import Game
from guandan_fast.moves import IllegalMoveError
from guandan_fast.record_lines import hand_lines
from guandan_fast.rules import Rules
from guandan_fast.simulate import simulate

AGENTS = core.AGENT_CODES
RULES = [
    Rules(),
    Rules(anti_tribute=False, upgrade="4-2-1"),
    Rules(double_tie="winners_choose", return_rule="any"),
    Rules(tribute_on_first_fourth="3rd_pays", return_rule="any_but_received",
          ace_rule="double_only", ace_fail_reset=2),
    Rules(tribute_on_first_fourth="none", ace_rule="any_win", count_disclosure="always",
          sf_as_straight=False, fullhouse_joker_pair=False),
]
SEATINGS = [("greedy", "random", "greedy", "random"), ("expert", "greedy", "expert", "greedy"),
            ("random_compact", "expert", "random", "expert")]


def oracle(ms, rules, log):
    """The hand lines of ``records.log_to_lines`` as bytes (the writer's form)."""
    lines = records.log_to_lines(Game, ms, rules, None, log)
    return "".join(line + "\n" for line in lines[1:]).encode()


def logs(rules, seating, matches, seed):
    kinds = tuple(AGENTS[a] for a in seating)
    for i in range(matches):
        ms, log, _ = core.record_match(seed, i, kinds, rules)
        yield ms, log


@pytest.mark.parametrize("rules", RULES, ids=range(len(RULES)))
@pytest.mark.parametrize("seating", SEATINGS, ids=lambda s: "-".join(s))
def test_whole_matches_give_the_oracles_bytes(rules, seating):
    seen = {"exchange": 0, "anti": 0, "double": 0, "jokers": 0}
    for ms, log in logs(rules, seating, 6, seed=11):
        got = hand_lines(Game(ms, rules), log)
        assert got == oracle(ms, rules, log)
        for line in got.decode().splitlines():
            h = json.loads(line)
            seen["exchange"] += bool(h["tribute"])
            seen["anti"] += h["anti_tribute"]
            seen["double"] += len(h["tribute"]) == 2
            seen["jokers"] += any(m[1][1] in ("B", "R", "JOKER") for m in h["moves"])
    # the matches exercised what the line's fields can hold
    assert seen["exchange"] > 0 and seen["jokers"] > 0


def test_the_variants_reach_anti_tribute_and_double_down_exchanges():
    # Enough hands that the rarer exchanges happen, each line checked against the oracle.
    seen = {"anti": 0, "double": 0, "choose": 0}
    rules = Rules(double_tie="winners_choose")
    for ms, log in logs(rules, ("greedy", "random", "greedy", "random"), 60, seed=3):
        got = hand_lines(Game(ms, rules), log)
        assert got == oracle(ms, rules, log)
        for line in got.decode().splitlines():
            h = json.loads(line)
            seen["anti"] += h["anti_tribute"]
            seen["double"] += len(h["tribute"]) == 2
    assert seen["anti"] > 0 and seen["double"] > 0


@pytest.mark.parametrize("rules", RULES[:3], ids=range(3))
def test_a_log_cut_anywhere_gives_the_oracles_bytes(rules):
    rng = np.random.default_rng(5)
    for ms, log in logs(rules, ("greedy", "random", "greedy", "random"), 4, seed=8):
        # every row of a hand with an exchange, then cuts at random
        ends = {0, 1, 2, 3, 4, 5, len(log) - 1, len(log)} | set(rng.integers(0, len(log), 12))
        exchange = [i for i in range(len(log)) if (int(log[i, 2]) >> 56) & 15 in (10, 11)]
        ends |= {i + d for i in exchange for d in (0, 1)}
        for end in sorted(e for e in ends if 0 <= e <= len(log)):
            part = log[:end].copy()
            assert hand_lines(Game(ms, rules), part) == oracle(ms, rules, part), end


@pytest.mark.parametrize("previous", [[1, 3, 0, 2], [3, 0, 2, 1]])
def test_a_constructed_deal_gives_the_oracles_bytes(previous):
    # Uneven hands (one seat holds 80 cards) and an exchange to begin with.
    deck = list(FULL_DECK)
    np.random.default_rng(4).shuffle(deck)
    g = Game.setup([deck[:5], deck[5:9], deck[9:28], deck[28:]], levels=(5, 7), declarer=1,
                   previous_finish=previous, seed=4)
    start = g.clone()
    for _ in range(400):
        if g.is_over:
            break
        g.play_index(len(g.legal_moves()) // 2)
    log = g.action_log()
    lines = records.game_to_lines(g)
    assert json.loads(lines[1])["tribute"]
    assert hand_lines(start, log) == "".join(x + "\n" for x in lines[1:]).encode()


def test_the_game_given_is_not_changed():
    ms, log = next(logs(Rules(), ("greedy",) * 4, 1, seed=2))
    g = Game(ms)
    hand_lines(g, log)
    assert g == Game(ms)


def _oracle_error(ms, log):
    with pytest.raises(Exception) as info:
        records.log_to_lines(Game, ms, Rules(), None, log)
    return info.type, str(info.value)


@pytest.mark.parametrize("damage", ["reversed", "wrong seat", "bad card", "after the end",
                                    "illegal", "float", "columns", "list"])
def test_a_bad_log_raises_the_oracles_error(damage):
    ms, log, _ = core.record_match(1, 0, (2, 0, 2, 0))
    log = log.copy()
    if damage == "reversed":
        log = log[::-1].copy()
    elif damage == "wrong seat":
        log[7, 0] = (log[7, 0] + 1) % 4
    elif damage == "bad card":
        log[9, 1] ^= 1 << 40
    elif damage == "after the end":
        log = np.concatenate([log, log[-1:]])
    elif damage == "illegal":
        log[3] = log[2]
    elif damage == "float":
        log = log.astype(float)
    elif damage == "columns":
        log = log[:, :2].copy()
    else:
        log = log.tolist()
    kind, message = _oracle_error(ms, log)
    with pytest.raises(kind) as info:
        hand_lines(Game(ms), log)
    assert str(info.value) == message
    if kind is IllegalMoveError or damage in ("bad card",):
        assert message.startswith("log row ")


def test_record_chunk_writes_headers_and_lines_in_match_order():
    kinds = (AGENTS["expert"], AGENTS["random"], AGENTS["greedy"], AGENTS["random"])
    rules = Rules(double_tie="winners_choose")
    headers = [f'{{"match": {i}}}\n'.encode() for i in range(5, 9)]
    data, stats = core.record_chunk(5, 9, 77, kinds, headers, rules)
    want = b""
    for i in range(5, 9):
        ms, log, _ = core.record_match(77, i, kinds, rules)
        want += headers[i - 5] + oracle(ms, rules, log)
    assert data == want
    assert stats == core.run_chunk(5, 9, 77, kinds, rules)


def test_record_chunk_with_a_hand_budget_ends_on_the_cut_match():
    kinds = (AGENTS["greedy"], AGENTS["random"]) * 2
    headers = [b"{}\n"] * 16
    data, stats = core.record_chunk(0, 16, 3, kinds, headers, hand_budget=10)
    assert stats == core.run_chunk(0, 16, 3, kinds, hand_budget=10)
    lines = data.decode().splitlines()
    assert lines.count("{}") == stats["matches"] + stats["truncated"]
    finished = [json.loads(x) for x in lines if x != "{}"]
    assert sum(h["finish_order"] is not None for h in finished) == 10


def test_record_chunk_refuses_missing_headers():
    with pytest.raises(ValueError, match="headers must be 3 bytes objects"):
        core.record_chunk(0, 3, 1, (0, 0, 0, 0), [b"{}\n"] * 2)
    with pytest.raises(ValueError, match="headers must be 1 bytes objects"):
        core.record_chunk(0, 1, 1, (0, 0, 0, 0), ["{}\n"])


@pytest.mark.parametrize("mode", [{"matches": 40}, {"hands": 150}])
def test_a_simulated_record_is_the_oracles_file_at_every_thread_count(tmp_path, mode):
    agents = ("greedy", "expert", "random", "expert")
    kinds = tuple(AGENTS[a] for a in agents)
    texts = []
    for threads in (1, 2, 3):
        path = tmp_path / f"sim{threads}.jsonl"
        res = simulate(**mode, seed=9, agents=agents, threads=threads, record=path)
        texts.append(path.read_bytes())
    assert texts[0] == texts[1] == texts[2]
    # the oracle: every match (the last one cut in hands mode) through log_to_lines
    want, left = [], mode.get("hands")
    for i in range(res.matches + res.truncated):
        ms, log, stats = core.record_match(9, i, kinds, hand_budget=left)
        want += records.log_to_lines(Game, ms, Rules(), None, log, list(agents))
        if left is not None:
            left -= stats["hands"]
    assert texts[0] == "".join(x + "\n" for x in want).encode()


def test_a_block_over_threads_gives_one_threads_record():
    # The unit of a Ray task: its chunks recorded on its threads, joined in match order.
    from guandan_fast.simulate import MatchBlock

    kinds = (AGENTS["greedy"], AGENTS["random"]) * 2
    names = ["greedy", "random"] * 2
    one = MatchBlock(4, kinds, Rules(), None, 1, True, names)(3, 40)
    two = MatchBlock(4, kinds, Rules(), None, 2, True, names)(3, 40)
    assert two == one and one[0].count(b'"format"') == 37
    assert one[1] == core.run_chunk(3, 40, 4, kinds)


@pytest.mark.parametrize("args, kw, message", [
    ((5, 3), {}, r"stop \(3\) must not be below start \(5\)"),
    ((0, 2), {"hand_budget": 0}, "hand_budget must be >= 1, got 0"),
])
def test_chunk_range_and_budget_are_checked_alike(args, kw, message):
    # run_chunk and record_chunk share one check of the chunk's range and hand budget
    kinds = (0, 0, 0, 0)
    with pytest.raises(ValueError, match=message):
        core.run_chunk(*args, 1, kinds, **kw)
    with pytest.raises(ValueError, match=message):
        core.record_chunk(*args, 1, kinds, [b"{}\n"] * 5, **kw)
