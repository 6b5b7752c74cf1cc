"""Retrieval: analyse → seed → expand → gather passages → fuse → budget → format."""
