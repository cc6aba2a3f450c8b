"""Summary of a packet-level run, with the same public keys as the round model's
(:class:`PacketSummary`, :func:`summarise`; docs/simulator.md, "Results")."""

from ._results import PacketSummary, summarise

__all__ = ["PacketSummary", "summarise"]
