"""Text helpers shared by every stage: tokens, words and stems, sentences, names and entity types.

Nothing here knows about stores, models of the graph or language models; ingestion,
retrieval and answering all import from here and never from each other for text work.
"""
