"""The package's layers: the compiled core and the friendly API never load the reference engine
(the slow oracle is for tests, perft comparison and users who ask for it)."""

import subprocess
import sys

import pytest

from guandan_fast import Move

_USE_THE_API = """
import sys
import guandan_fast as gf
m = gf.Move.from_platform(['Pair', '9', ['H7', 'D9']], level=7)
g = gf.Game(seed=3)
for _ in range(50):
    g.play(g.legal_moves()[0])
gf.classify('S8 C8 H7 DJ HJ', 7)
gf.simulate(matches=2, seed=1)
g.to_record()
from guandan_fast import cli, perft, records
perft.perft(1, 2)
print(sorted(k for k in sys.modules if k.startswith('guandan_fast.reference')))
"""


def test_the_api_never_imports_the_reference_engine():
    out = subprocess.run([sys.executable, "-c", _USE_THE_API], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"


def test_from_platform_rejects_a_false_reading_without_the_reference():
    with pytest.raises(ValueError, match="do not make Pair 9 at level 7"):
        Move.from_platform(["Pair", "9", ["H7", "SB"]], level=7)
