"""A check shared by the backends' tests: the engine's ``search`` finds a document in
Chinese, Japanese or Arabic by one of its words (ingested through the public API)."""

from __future__ import annotations

from loregraph import AsyncGraph
from loregraph.embed.hashing import HashingEmbedder
from loregraph.store.base import Store

DOCUMENTS = {
    "北京": "北京是中华人民共和国的首都，也是全国的政治和文化中心。",
    "東京": "東京は日本の首都です。猫が好きな人が多い。",
    "القاهرة": "القاهرة هي عاصمة مصر وأكبر مدنها، ويعيش في المدينة ملايين الناس.",
    "Whitby": "The ship ran aground at Whitby in a storm, and a great dog leapt ashore.",
}

QUERIES = (
    ("政治", "北京"),  # "politics", two characters inside a clause
    ("文化中心", "北京"),  # "cultural centre"
    ("猫", "東京"),  # "cat", one character
    ("日本", "東京"),
    ("مدينة", "القاهرة"),  # "city"; the text has it with the article, "المدينة"
    ("عاصمة مصر", "القاهرة"),  # "capital of Egypt"
    ("storm", "Whitby"),
)


async def engine_finds_words_of_every_script(store: Store) -> None:
    """Ingest :data:`DOCUMENTS` into ``store`` and check every query of :data:`QUERIES`."""
    graph = AsyncGraph(store, embedder=HashingEmbedder(dim=64))
    for title, text in DOCUMENTS.items():
        report = await graph.ingest_text(text, title=title, source=f"test:{title}")
        assert report.ok, report.failed
    for query, title in QUERIES:
        hits = await graph.search(query)
        assert hits, query
        assert hits[0].title == title, (query, [h.title for h in hits])
    for absent in ("ロンドン", "zzzzqqq xyzzy"):  # "London": in no document
        found = await graph.search(absent)
        assert not found.relevant and not any(hit.relevant for hit in found)
