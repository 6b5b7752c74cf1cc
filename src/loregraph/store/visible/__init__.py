"""What a principal may see of a store: the graph built from the documents it may read."""

from loregraph.store.visible.view import VisibleStore

__all__ = ["VisibleStore"]
