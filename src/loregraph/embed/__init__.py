"""Embedders: the packaged all-MiniLM-L6-v2 run with NumPy, and remote APIs."""

from loregraph.embed.base import Embedder

__all__ = ["Embedder"]
