"""The peers benchmark: loregraph's framework cost against LightRAG and nano-graphrag.

Every system gets the same extractions (what loregraph's offline extractor found, recorded
once and replayed: loregraph through a replay extractor, the peers through a fake LLM that
answers in each peer's own output format) and the same cheap deterministic embedding, so
that only the framework's own cost differs. The peers live in a separate environment
(``.venv-peers``, see ``setup_env.sh``) and run as subprocesses of ``python -m
bench.peers.run``.

Modules that the peers' processes import (``corpus``, ``render``, ``fake_llm``,
``embedding``, ``offline``, ``lightrag_side``, ``nano_side``, ``peer_main``) use only the
standard library and NumPy, never ``loregraph``.
"""
