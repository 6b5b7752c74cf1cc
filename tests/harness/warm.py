"""Imported once by the concurrency harness's fork server (``forkserver`` start method).

It loads what every worker needs (the engine's modules and the spaCy pipeline), so that each
of the 12 workers starts as a fork of one warm process instead of importing everything and
loading the model again on a shared 2-core machine. Nothing here is shared at run time:
every worker opens its own store and builds its own engine.
"""

from __future__ import annotations

import loregraph.graph
import loregraph.retrieve.pipeline  # noqa: F401
from loregraph.ingest.extract.spacy_nlp import load_nlp

load_nlp("en_core_web_sm")
