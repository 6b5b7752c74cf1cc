"""The graph side of retrieval: the in-memory graph index of a scope, PageRank, entity pages
and bridges, k-hop expansion and the caches that keep them."""
