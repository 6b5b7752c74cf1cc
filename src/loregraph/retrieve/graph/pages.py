"""Entity pages and bridges: multi-hop retrieval over collections of short titled documents.

Many corpora hold one short document per thing: encyclopedia articles, product sheets,
people records, agent memories about a user. A short document whose title names an entity
is that entity's **page**. Two rankings follow from pages:

* ``pages``: the pages of the entities the question names (exact, capitalised mentions);
  the documents a question is literally about.
* ``bridges``: the pages of the entities *those* pages mention, ranked by how well the
  sentence that mentions them matches the rest of the question. "What nationality is the
  director of film Blood Street?" names *Blood Street*; its page says "directed by Leo
  Fong"; the sentence shares "direct…" with the question's remaining words (*nationality*,
  *director*), so Leo Fong's page ranks first among the bridges. This is the second hop of
  a multi-hop question, found without an LLM.

Documents with more than :data:`PAGE_MAX_CHUNKS` chunks are never pages: a novel titled
after its hero is not a page about the hero.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from loregraph.models import Chunk, Document, Entity, name_key
from loregraph.retrieve.results.result import QueryAnalysis
from loregraph.text.words import content_words

PAGE_MAX_CHUNKS = 4
"""A document with more chunks than this is not an entity's page."""

MAX_ANCHORS = 4
"""How many named entities' pages are searched for bridges."""

PREFIX_MATCH = 5
"""Two words match when equal or sharing a prefix this long ("director" / "directed")."""

_SENTENCE_END = re.compile(r"[.!?][\"')\]]*\s+(?=[\"'(\[]?[A-Z0-9])")
_INITIAL = re.compile(r"(?:^|[\s(])(?:[A-Z]|[A-Z][a-z]|St|Dr|Mr|Mrs|Ms|Jr|Sr|No|Vol|vs)$")


def title_keys(title: str) -> list[str]:
    """The name keys a document title may name an entity by: the whole title and, for
    encyclopedia-style titles, the name without its qualifier ("Dark River (2017 film)")."""
    from loregraph.text.names import split_qualifier

    keys = [name_key(title)]
    core, qualifier = split_qualifier(title)
    if qualifier:
        keys.append(name_key(core))
    return [k for k in dict.fromkeys(keys) if k]


def page_documents(
    documents: Sequence[Document],
    chunk_ids: Sequence[str],
    chunk_document: Sequence[str],
    entities_by_key: Mapping[str, Entity],
) -> dict[str, list[str]]:
    """Entity id → chunk ids of its pages (short documents titled by the entity's name)."""
    chunks_of: dict[str, list[str]] = {}
    for chunk_id, document_id in zip(chunk_ids, chunk_document, strict=True):
        chunks_of.setdefault(document_id, []).append(chunk_id)
    pages: dict[str, list[str]] = {}
    for document in documents:
        chunks = chunks_of.get(document.id, [])
        if not chunks or len(chunks) > PAGE_MAX_CHUNKS:
            continue
        for key in title_keys(document.title):
            entity = entities_by_key.get(key)
            if entity is not None:
                pages.setdefault(entity.id, []).extend(chunks)
                break
    return pages


def _is_name(mention: str) -> bool:
    """Whether a question's mention is written as a name (has a capital letter)."""
    return any(ch.isupper() for ch in mention)


def named_entities(analysis: QueryAnalysis) -> list[str]:
    """Ids of the entities the question names with a capitalised mention, in order.

    An all-lower-case phrase ("place of birth") that happens to match a title is a common
    phrase, not a name, and does not make a page relevant.
    """
    ids: dict[str, None] = {}
    for mention, entity_id in analysis.matched.items():
        if _is_name(mention):
            ids.setdefault(entity_id, None)
    return list(ids)


def relation_words(analysis: QueryAnalysis) -> list[str]:
    """The question's content words outside its named mentions ("director", "born")."""
    named: set[str] = set()
    for mention in analysis.matched:
        if _is_name(mention):
            named.update(w.casefold() for w in content_words(mention))
    return [w for w in dict.fromkeys(w.casefold() for w in analysis.keywords) if w not in named]


def split_sentences(text: str) -> list[str]:
    """Sentences of a passage; initials and short abbreviations ("Albert S. Rogell",
    "Dr. Seward") do not end a sentence."""
    out: list[str] = []
    start = 0
    for match in _SENTENCE_END.finditer(text):
        if _INITIAL.search(text, 0, match.start()):
            continue
        out.append(text[start : match.end()].strip())
        start = match.end()
    tail = text[start:].strip()
    if tail:
        out.append(tail)
    return out


def words_match(a: str, b: str) -> bool:
    """Whether two case-folded words are the same word for matching purposes."""
    if a == b:
        return True
    shared = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        shared += 1
    return shared >= PREFIX_MATCH or (shared >= 4 and shared >= min(len(a), len(b)) - 1)


@dataclass(slots=True)
class _Located:
    """Where an entity is mentioned in an anchor page, and how well that sentence fits."""

    score: float
    position: int


def _locate(entity: Entity, text: str, sentences: list[str], wanted: list[str]) -> _Located:
    """The best sentence of ``text`` mentioning ``entity``: matched question words in it."""
    forms = [f for f in dict.fromkeys([entity.name, *entity.aliases]) if f]
    lowered = text.casefold()
    positions = [p for p in (lowered.find(f.casefold()) for f in forms) if p >= 0]
    position = min(positions) if positions else len(text)
    own = {w.casefold() for f in forms for w in content_words(f)}
    best = 0.0
    for sentence in sentences:
        folded = sentence.casefold()
        if not any(f.casefold() in folded for f in forms):
            continue
        others = [w.casefold() for w in content_words(sentence) if w.casefold() not in own]
        hits = sum(1 for q in wanted if any(words_match(q, w) for w in others))
        best = max(best, float(hits))
    return _Located(best, position)


def bridge_ranking(
    anchors: Sequence[Chunk],
    mentioned: Mapping[str, Sequence[Entity]],
    pages: Mapping[str, Sequence[str]],
    wanted: Sequence[str],
    exclude: set[str],
) -> list[str]:
    """Chunk ids of the pages of entities mentioned in the ``anchors`` (best first).

    ``anchors`` are page chunks of the named entities, best first; ``mentioned`` maps a chunk
    id to the entities mentioned in it; ``wanted`` are the question's relation words;
    ``exclude`` are entity ids never to bridge to (the named ones). An entity scores the
    number of relation words its best sentence matches, then earlier anchors and earlier
    mentions win ties.
    """
    wanted_words = [w.casefold() for w in wanted]
    anchor_ids = {c.id for c in anchors}
    scores: dict[str, float] = {}
    for rank, chunk in enumerate(anchors):
        sentences = split_sentences(chunk.text)
        for entity in mentioned.get(chunk.id, ()):
            if entity.id in exclude or entity.id not in pages:
                continue
            located = _locate(entity, chunk.text, sentences, wanted_words)
            score = located.score + 0.01 / (1 + rank) - 1e-6 * located.position
            for chunk_id in pages[entity.id]:
                if chunk_id not in anchor_ids and score > scores.get(chunk_id, float("-inf")):
                    scores[chunk_id] = score
    return [c for c, _ in sorted(scores.items(), key=lambda kv: -kv[1])]
