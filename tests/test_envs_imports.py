"""The framework adapters are optional: importing the package imports none of them."""

import subprocess
import sys


def test_core_import_does_not_import_frameworks():
    code = ("import sys, guandan_fast, guandan_fast.envs; "
            "print(sorted(m for m in ('gymnasium', 'pettingzoo', 'pyspiel', 'open_spiel') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "[]"
    # and each adapter imports its own framework (so the check above can fail)
    code = ("import sys, guandan_fast.envs.pettingzoo; "
            "print('pettingzoo' in sys.modules and 'gymnasium' in sys.modules)")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True).stdout.strip() == "True"
