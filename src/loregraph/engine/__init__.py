"""The engine's assembly: its collaborators built once (:mod:`.parts`), and the lookups and
views its public methods share (:mod:`.lookup`, :mod:`.views`).

The public classes are :class:`~loregraph.graph.AsyncGraph` (async core) and
:class:`~loregraph.blocking.Graph` (blocking facade).
"""
