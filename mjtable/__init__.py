"""mjtable: the Raspberry Pi service inside an automatic mahjong table.

Shared pieces live here (tile model, CLI); the parts are the top-level packages ``firmware_bridge``,
``vision``, ``controller`` and ``hw``.
"""

__version__ = "0.1.0"
