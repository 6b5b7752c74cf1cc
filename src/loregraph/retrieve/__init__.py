"""Retrieval: analyse → find the start entities → expand → gather passages → fuse → budget
→ format. The engine's entry is :class:`loregraph.retrieve.pipeline.Retriever`; the
records it produces are in :mod:`loregraph.retrieve.results.result` (exported from
``loregraph``)."""
