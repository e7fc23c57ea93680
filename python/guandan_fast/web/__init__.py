"""People at the table: web pages for watching and playing games (docs/web.md).

``viewer`` (``guandan-fast view``: a recorded match in the browser, or as one self-contained
HTML file), ``play`` (``guandan-fast play``: a person at a table of agents, the page being a
platform-protocol client), ``pages`` (assembling the pages from the scripts, styles and card
pictures shipped in ``assets/``). Nothing here is imported by the engine; ``websockets`` is
needed only by ``play``.
"""
