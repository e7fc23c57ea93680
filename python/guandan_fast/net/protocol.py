"""The competition platform's WebSocket messages (docs/server.md): building and checking.

One module for both ends: the server builds messages with these functions, the client and
the tests check every message they receive with :func:`check_message`, and both read an
answer with :func:`parse_answer`. Nothing here needs ``websockets``.

>>> msg = notify_beginning(['S2', 'H3'], 1)
>>> check_message(msg)
>>> msg
{'type': 'notify', 'stage': 'beginning', 'handCards': ['S2', 'H3'], 'myPos': 1}
>>> check_message({'type': 'notify', 'stage': 'beginning', 'handCards': ['S2']})
Traceback (most recent call last):
...
ValueError: notify/beginning: missing field(s) myPos
>>> parse_answer('{"actIndex": 3}', 5)
3
>>> parse_answer('{"actIndex": 6}', 5)
Traceback (most recent call last):
...
ValueError: actIndex 6 out of range 0..5
"""

from __future__ import annotations

import json

from ..cards import KIND_OF, RANKS

__all__ = ["PASS_ACTION", "notify_beginning", "notify_play", "notify_exchange",
           "notify_anti_tribute", "notify_episode_over", "notify_game_over",
           "notify_game_result", "act", "action_json", "act_json", "notify_play_json",
           "check_message", "check_action", "parse_answer"]

PASS_ACTION = ["PASS", "PASS", "PASS"]

# (type, stage) -> the exact set of fields besides "type" and "stage".
FIELDS = {
    ("notify", "beginning"): {"handCards", "myPos"},
    ("notify", "play"): {"curPos", "curAction", "greaterPos", "greaterAction"},
    ("notify", "tribute"): {"result"},
    ("notify", "anti-tribute"): {"antiNums", "antiPos"},
    ("notify", "back"): {"result"},
    ("notify", "episodeOver"): {"order", "curRank", "restCards"},
    ("notify", "gameOver"): {"curTimes", "settingTimes"},
    ("notify", "gameResult"): {"victoryNum", "draws"},
}
_ACT_FIELDS = {"handCards", "publicInfo", "selfRank", "oppoRank", "curRank", "curPos",
               "curAction", "greaterPos", "greaterAction", "actionList", "indexRange"}
for _stage in ("play", "tribute", "back"):
    FIELDS[("act", _stage)] = _ACT_FIELDS

_PLAY_TYPES = {"Single", "Pair", "Trips", "ThreeWithTwo", "Straight", "ThreePair",
               "TwoTrips", "Bomb", "StraightFlush"}


# -- building (server) -----------------------------------------------------------------------

def notify_beginning(hand_cards, my_pos: int) -> dict:
    return {"type": "notify", "stage": "beginning", "handCards": list(hand_cards),
            "myPos": my_pos}


def notify_play(cur_pos: int, cur_action: list, greater_pos: int, greater_action) -> dict:
    return {"type": "notify", "stage": "play", "curPos": cur_pos, "curAction": cur_action,
            "greaterPos": greater_pos, "greaterAction": greater_action}


def notify_exchange(stage: str, result) -> dict:
    """``tribute`` or ``back`` results: ``[[from, to, card], ...]``."""
    return {"type": "notify", "stage": stage, "result": [list(r) for r in result]}


def notify_anti_tribute(anti_pos) -> dict:
    """``antiNums`` is the number of seats in ``antiPos`` (the paying seats holding a big
    joker): 1 when one payer holds both, 2 when two payers hold one each."""
    return {"type": "notify", "stage": "anti-tribute", "antiNums": len(anti_pos),
            "antiPos": list(anti_pos)}


def notify_episode_over(order, cur_rank: str, rest_cards) -> dict:
    return {"type": "notify", "stage": "episodeOver", "order": list(order),
            "curRank": cur_rank, "restCards": [[s, list(c)] for s, c in rest_cards]}


def notify_game_over(cur_times: int, setting_times: int) -> dict:
    return {"type": "notify", "stage": "gameOver", "curTimes": cur_times,
            "settingTimes": setting_times}


def notify_game_result(victory_num, draws) -> dict:
    return {"type": "notify", "stage": "gameResult", "victoryNum": list(victory_num),
            "draws": list(draws)}


def act(stage: str, *, hand_cards, public_info, self_rank: str, oppo_rank: str,
        cur_rank: str, cur_pos: int, cur_action, greater_pos: int, greater_action,
        action_list: list) -> dict:
    """An ``act`` message (``stage``: ``play``, ``tribute`` or ``back``)."""
    return {"type": "act", "stage": stage, "handCards": list(hand_cards),
            "publicInfo": public_info, "selfRank": self_rank, "oppoRank": oppo_rank,
            "curRank": cur_rank, "curPos": cur_pos, "curAction": cur_action,
            "greaterPos": greater_pos, "greaterAction": greater_action,
            "actionList": action_list, "indexRange": len(action_list) - 1}


def action_json(kind: str, rank: str, cards) -> str:
    """The JSON text of the platform action ``[kind, rank, cards]`` exactly as ``json.dumps``
    writes it (PASS included), without building the list: move types, ranks and card codes
    are plain ASCII names that need no escaping.

    >>> action_json('Pair', '4', ('H4', 'C4')) == json.dumps(['Pair', '4', ['H4', 'C4']])
    True
    >>> action_json('PASS', 'PASS', ()) == json.dumps(PASS_ACTION)
    True
    """
    if kind == "PASS":
        return _PASS_JSON
    return f'["{kind}", "{rank}", ["{_QUOTED_SEP.join(cards)}"]]'


_PASS_JSON = json.dumps(PASS_ACTION)
_QUOTED_SEP = '", "'


def _action_or_null(a) -> str:
    return "null" if a is None else action_json(*a)


def _codes_json(cards) -> str:
    return f'["{_QUOTED_SEP.join(cards)}"]' if cards else "[]"


def act_json(stage: str, *, action_list_json: str, n_actions: int, hand_cards, public_info,
             self_rank: str, oppo_rank: str, cur_rank: str, cur_pos: int, cur_action,
             greater_pos: int, greater_action) -> str:
    """The text of ``json.dumps(act(stage, action_list=..., ...))`` written directly, with
    the action list given as its JSON text (``action_list_json``, of ``n_actions`` actions:
    ``MoveList.to_platform_json`` writes it in compiled code): an ``act`` per decision is most
    of the server's encoding, and this costs a fraction of json.dumps (which walks every
    nested list and string). Names, ranks and card codes are plain ASCII and need no escaping.

    >>> acts = [['Single', '2', ['D2']], ['PASS', 'PASS', 'PASS']]
    >>> info = [{'rest': 1, 'playArea': None}, {'rest': 27, 'playArea': ['Pair', '4', ['H4', 'C4']]},
    ...         {'rest': 0, 'playArea': ['PASS', 'PASS', 'PASS']}, {'rest': 3, 'playArea': None}]
    >>> kw = dict(hand_cards=['D2'], public_info=info, self_rank='2', oppo_rank='A',
    ...           cur_rank='2', cur_pos=2, cur_action=['PASS', 'PASS', 'PASS'], greater_pos=1,
    ...           greater_action=['Pair', '4', ['H4', 'C4']])
    >>> text = act_json("play", action_list_json=json.dumps(acts), n_actions=len(acts), **kw)
    >>> text == json.dumps(act('play', action_list=acts, **kw))
    True
    """
    info = ", ".join(f'{{"rest": {q["rest"]}, "playArea": {_action_or_null(q["playArea"])}}}'
                     for q in public_info)
    return (f'{{"type": "act", "stage": "{stage}", "handCards": {_codes_json(hand_cards)}, '
            f'"publicInfo": [{info}], "selfRank": "{self_rank}", "oppoRank": "{oppo_rank}", '
            f'"curRank": "{cur_rank}", "curPos": {cur_pos}, '
            f'"curAction": {_action_or_null(cur_action)}, "greaterPos": {greater_pos}, '
            f'"greaterAction": {_action_or_null(greater_action)}, '
            f'"actionList": {action_list_json}, "indexRange": {n_actions - 1}}}')


def notify_play_json(cur_pos: int, cur_action: list, greater_pos: int, greater_action) -> str:
    """``json.dumps(notify_play(...))`` written directly (sent after every move).

    >>> args = (3, ['PASS', 'PASS', 'PASS'], 1, ['Single', 'A', ['SA']])
    >>> notify_play_json(*args) == json.dumps(notify_play(*args))
    True
    """
    return (f'{{"type": "notify", "stage": "play", "curPos": {cur_pos}, '
            f'"curAction": {_action_or_null(cur_action)}, "greaterPos": {greater_pos}, '
            f'"greaterAction": {_action_or_null(greater_action)}}}')


# -- checking (client, tests) ----------------------------------------------------------------

def _seat(v, what, allow_none=False) -> None:
    lo = -1 if allow_none else 0
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= 3:
        raise ValueError(f"{what} must be a seat {lo}..3, got {v!r}")


def _cards(v, what) -> None:
    if not isinstance(v, list) or not all(isinstance(c, str) and c in KIND_OF for c in v):
        raise ValueError(f"{what} must be a list of card codes, got {v!r}")


def _rank(v, what) -> None:
    if not (isinstance(v, str) and len(v) == 1 and v in RANKS):
        raise ValueError(f"{what} must be a rank character 2..A, got {v!r}")


def check_action(a, what: str = "action") -> None:
    """An action ``[type, rank, cards]`` of the platform's form (PASS, plays, tribute, back).

    >>> check_action(['Pair', '4', ['H4', 'C4']])
    >>> check_action(['Pair', '4', 'H4 C4'])
    Traceback (most recent call last):
    ...
    ValueError: action: cards must be a list of card codes, got 'H4 C4'
    """
    if not isinstance(a, list) or len(a) != 3:
        raise ValueError(f"{what} must be [type, rank, cards], got {a!r}")
    t, r, c = a
    if t == "PASS":
        if a != PASS_ACTION:
            raise ValueError(f"{what}: a PASS is {PASS_ACTION}, got {a!r}")
        return
    if t in ("tribute", "back"):
        if r != t:
            raise ValueError(f"{what}: a {t} action has rank {t!r}, got {r!r}")
        _cards(c, f"{what}: cards")
        if len(c) != 1:
            raise ValueError(f"{what}: a {t} action has one card, got {c!r}")
        return
    if t not in _PLAY_TYPES:
        raise ValueError(f"{what}: unknown type {t!r}")
    if not isinstance(r, str) or r not in set(RANKS) | {"B", "R", "JOKER"}:
        raise ValueError(f"{what}: bad rank label {r!r}")
    _cards(c, f"{what}: cards")
    if not c:
        raise ValueError(f"{what}: a {t} has cards")


def _counts(v, what) -> None:
    if (not isinstance(v, list) or len(v) != 4
            or not all(isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in v)):
        raise ValueError(f"{what} must be 4 counts, got {v!r}")


def _exchange(v, what, kind) -> None:
    if not isinstance(v, list) or not 1 <= len(v) <= 2:
        raise ValueError(f"{what} must be 1 or 2 [from, to, card] entries, got {v!r}")
    for e in v:
        if not isinstance(e, list) or len(e) != 3:
            raise ValueError(f"{what}: an entry is [from, to, card], got {e!r}")
        _seat(e[0], f"{what}: from")
        _seat(e[1], f"{what}: to")
        _cards([e[2]], f"{what}: card")
        if e[0] == e[1]:
            raise ValueError(f"{what}: {kind} from a seat to itself: {e!r}")


def check_message(msg) -> None:
    """Raise ``ValueError`` unless ``msg`` is a server message exactly as docs/server.md
    (PROTOCOL.md) describes it: known (type, stage), every field present, no other field, and
    each field of the right form."""
    if not isinstance(msg, dict):
        raise ValueError(f"a message is a JSON object, got {type(msg).__name__}")
    key = (msg.get("type"), msg.get("stage"))
    if key not in FIELDS:
        raise ValueError(f"unknown message type/stage {key!r}")
    name = f"{key[0]}/{key[1]}"
    have = set(msg) - {"type", "stage"}
    want = FIELDS[key]
    if want - have:
        raise ValueError(f"{name}: missing field(s) {', '.join(sorted(want - have))}")
    if have - want:
        raise ValueError(f"{name}: unexpected field(s) {', '.join(sorted(have - want))}")
    t, stage = key
    g = msg.get
    if t == "act":
        _cards(g("handCards"), f"{name}: handCards")
        info = g("publicInfo")
        if not isinstance(info, list) or len(info) != 4:
            raise ValueError(f"{name}: publicInfo must have 4 entries")
        for i, e in enumerate(info):
            if not isinstance(e, dict) or set(e) != {"rest", "playArea"}:
                raise ValueError(f"{name}: publicInfo[{i}] must be {{rest, playArea}}, got {e!r}")
            if isinstance(e["rest"], bool) or not isinstance(e["rest"], int) or e["rest"] < 0:
                raise ValueError(f"{name}: publicInfo[{i}].rest must be a count")
            if e["playArea"] is not None:
                check_action(e["playArea"], f"{name}: publicInfo[{i}].playArea")
        for f in ("selfRank", "oppoRank", "curRank"):
            _rank(g(f), f"{name}: {f}")
        for pos, action in (("curPos", "curAction"), ("greaterPos", "greaterAction")):
            _seat(g(pos), f"{name}: {pos}", allow_none=True)
            if (g(pos) == -1) != (g(action) is None):
                raise ValueError(f"{name}: {pos} -1 goes with {action} null and only then")
            if g(action) is not None:
                check_action(g(action), f"{name}: {action}")
        if g("greaterAction") is not None and g("greaterAction") == PASS_ACTION:
            raise ValueError(f"{name}: greaterAction cannot be a PASS")
        actions = g("actionList")
        if not isinstance(actions, list) or not actions:
            raise ValueError(f"{name}: actionList must be a non-empty list")
        for i, a in enumerate(actions):
            check_action(a, f"{name}: actionList[{i}]")
            if stage in ("tribute", "back") and a[0] != stage:
                raise ValueError(f"{name}: actionList[{i}] must be a {stage} action, got {a!r}")
            if stage == "play" and a[0] in ("tribute", "back"):
                raise ValueError(f"{name}: actionList[{i}] is not a play: {a!r}")
        if stage == "play":
            following = g("greaterPos") != -1
            has_pass = PASS_ACTION in actions
            if following and actions[0] != PASS_ACTION:
                raise ValueError(f"{name}: when following, actionList[0] must be PASS")
            if not following and has_pass:
                raise ValueError(f"{name}: a lead cannot pass")
            if actions.count(PASS_ACTION) > 1:
                raise ValueError(f"{name}: PASS listed twice")
        if g("indexRange") != len(actions) - 1:
            raise ValueError(f"{name}: indexRange must be len(actionList) - 1 = {len(actions) - 1}, "
                             f"got {g('indexRange')!r}")
        return
    if stage == "beginning":
        _cards(g("handCards"), f"{name}: handCards")
        _seat(g("myPos"), f"{name}: myPos")
    elif stage == "play":
        _seat(g("curPos"), f"{name}: curPos")
        check_action(g("curAction"), f"{name}: curAction")
        _seat(g("greaterPos"), f"{name}: greaterPos")
        check_action(g("greaterAction"), f"{name}: greaterAction")
        if g("greaterAction") == PASS_ACTION:
            raise ValueError(f"{name}: greaterAction cannot be a PASS")
    elif stage in ("tribute", "back"):
        _exchange(g("result"), f"{name}: result", stage)
    elif stage == "anti-tribute":
        pos = g("antiPos")
        if not isinstance(pos, list) or not 1 <= len(pos) <= 2:
            raise ValueError(f"{name}: antiPos must list 1 or 2 seats, got {pos!r}")
        for s in pos:
            _seat(s, f"{name}: antiPos")
        if g("antiNums") != len(pos):
            raise ValueError(f"{name}: antiNums must be len(antiPos) = {len(pos)}")
    elif stage == "episodeOver":
        order = g("order")
        if not isinstance(order, list) or sorted(order) != [0, 1, 2, 3]:
            raise ValueError(f"{name}: order must list the 4 seats, got {order!r}")
        _rank(g("curRank"), f"{name}: curRank")
        rest = g("restCards")
        if not isinstance(rest, list):
            raise ValueError(f"{name}: restCards must be a list")
        for e in rest:
            if not isinstance(e, list) or len(e) != 2:
                raise ValueError(f"{name}: a restCards entry is [seat, cards], got {e!r}")
            _seat(e[0], f"{name}: restCards seat")
            _cards(e[1], f"{name}: restCards cards")
            if not e[1]:
                raise ValueError(f"{name}: restCards lists only players with cards left")
    elif stage == "gameOver":
        for f in ("curTimes", "settingTimes"):
            v = g(f)
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ValueError(f"{name}: {f} must be an int >= 1, got {v!r}")
        if g("curTimes") > g("settingTimes"):
            raise ValueError(f"{name}: curTimes > settingTimes")
    elif stage == "gameResult":
        _counts(g("victoryNum"), f"{name}: victoryNum")
        _counts(g("draws"), f"{name}: draws")


def parse_answer(data, index_range: int) -> int:
    """The index of a client's answer ``{"actIndex": i}``; ``ValueError`` with the reason
    for anything else (binary frame, not JSON, not an object, no int ``actIndex``, out of
    range). Extra keys are tolerated (some clients send them)."""
    if isinstance(data, (bytes, bytearray, memoryview)):
        raise ValueError("binary frame (answers are JSON text frames)")
    try:
        obj = json.loads(data)
    except (json.JSONDecodeError, RecursionError, TypeError):
        raise ValueError(f"not JSON: {data[:80]!r}") from None
    if not isinstance(obj, dict):
        raise ValueError(f"not a JSON object: {data[:80]!r}")
    if "actIndex" not in obj:
        raise ValueError(f"no actIndex in {data[:80]!r}")
    i = obj["actIndex"]
    if isinstance(i, bool) or not isinstance(i, int):
        raise ValueError(f"actIndex must be an int, got {i!r}")
    if not 0 <= i <= index_range:
        raise ValueError(f"actIndex {i} out of range 0..{index_range}")
    return i
