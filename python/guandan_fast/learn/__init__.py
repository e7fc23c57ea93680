"""Deep Monte-Carlo training and the learned agent (docs/training.md).

The trainer (``trainer``, ``model``) needs the ``train`` extra (PyTorch); everything an
exported agent needs to play (``qnet``, ``agent``) is numpy only, so importing this package
imports no PyTorch.
"""
