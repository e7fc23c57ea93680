"""Network play on the competition platform's WebSocket protocol (docs/server.md).

``server`` (``GameServer``, ``ServerConfig``: ``guandan-fast serve``), ``client``
(``play``: ``guandan-fast connect``), ``protocol`` (building and checking messages) and
``agents`` (a built-in agent's move for a ``Game`` or an ``act`` message). ``websockets`` is
imported only when a server starts or a client connects.
"""
