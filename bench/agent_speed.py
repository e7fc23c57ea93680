"""Each agent's speed in ``simulate`` (bench/RESULTS.md, "Whole games and simulation"): the
agent in all four seats, one thread, seed 0; hands and decisions (plays + passes) per CPU second of
the process (``time.process_time``: other processes' load counts less than in wall time).

    python bench/agent_speed.py

Takes about 5 s.
"""
import time

import guandan_fast as gf

AGENTS = (("random", 300), ("greedy", 300), ("expert", 300),
          ("pimc:samples=32:rollout=expert:margin=0.6", 3))


def main() -> None:
    for agent, matches in AGENTS:
        t = time.process_time()
        r = gf.simulate(matches=matches, agents=(agent,) * 4, seed=0, threads=1)
        cpu = time.process_time() - t
        decisions = r.plays + r.passes
        print(f"{agent}: {matches} matches, {r.hands} hands, {r.hands / cpu:,.1f} hands and "
              f"{decisions / cpu:,.0f} decisions per CPU second")


if __name__ == "__main__":
    main()
