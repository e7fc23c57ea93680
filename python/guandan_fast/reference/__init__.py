"""The reference engine: plain Python written straight from docs/rules.md, the oracle the
compiled core is checked against. It never imports the compiled core."""
