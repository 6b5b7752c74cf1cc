"""Roll calls: the people of a set that a passage announces by its number, as the rest of its
section names them.

"Which men proposed to Lucy Westenra?" is answered by a letter that says "THREE proposals in
one day!" and then tells of each man in turn: "number One came just before lunch. I told
you of him, Dr. John Seward…", "Mr. Quincey P. Morris found me alone…", and Arthur, who
"has just gone". Those sentences share no word with the question, so no ranking of
passages and no choice of sentences finds them; what marks them is where they are: after a
sentence that announces a number of what the question asks about, in the same section.

So when a question asks which people did something ("Which men…", "Which people…",
:func:`~loregraph.retrieve.terms.asks_for_people`), the top passages are read for an
**announcing sentence**: a number from two to twelve right before a word of the question's
own ("three proposals", "two friends"; "proposals" and "proposed" share their root). The
section holding it is read on from that sentence to its end (at most :data:`READ_ON_CHUNKS`
chunks), and the people it names are counted. Those the question names, and those the
section's heading names (the writer and the addressee of a letter: "Letter, Lucy Westenra
to Mina Murray"), are the setting, not the set. The most named come first, and as many are
kept as the sentence announced, each with a sentence naming them as evidence
(:func:`_evidence`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from loregraph.models import Entity
from loregraph.models import chunk_id as nth_chunk
from loregraph.retrieve.graphindex import GraphIndex
from loregraph.retrieve.passages import load_documents, stitched_text
from loregraph.retrieve.result import Member, Passage, QueryAnalysis, RollCall
from loregraph.retrieve.sections import SEPARATOR, section_index
from loregraph.retrieve.terms import asks_for_people
from loregraph.store.base import Store
from loregraph.text.entity_types import PERSON
from loregraph.text.sentences import split_sentences
from loregraph.text.words import stem, words

ANNOUNCING_PASSAGES = 8
"""How many of the top passages are read for an announcing sentence."""
READ_ON_CHUNKS = 16
"""How many chunks after the announcing one are read, at most, to the section's end."""
NEAR_WORDS = 2
"""How many words after the number the question's word may come ("three young women")."""
MIN_MEMBERS = 2
"""How many people the section must name for a roll call: one name is no set, and the
number announced was likely of something else."""
SUBJECT_WORDS = 3
"""A name among a sentence's first this many words is taken for its subject ("Mr. Quincey
P. Morris found me alone"), which makes the sentence the better evidence."""
MIN_ROOT = 4
"""How many first letters two words' stems must share to count as one root, at least
("proposal" and "proposed" share "propos")."""

_COUNTS = {
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
}


def same_root(a: str, b: str) -> bool:
    """Whether stems ``a`` and ``b`` are one word's: equal, or one begins with the other
    but for its last letter, sharing at least :data:`MIN_ROOT` letters."""
    if a == b:
        return True
    shorter, longer = sorted((a, b), key=len)
    shared = len(shorter) if longer.startswith(shorter) else _shared(shorter, longer)
    return shared >= max(MIN_ROOT, len(shorter) - 1)


def _shared(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def _count(word: str) -> int:
    folded = word.casefold()
    if folded.isdigit():
        value = int(folded)
        return value if 2 <= value <= max(_COUNTS.values()) else 0
    return _COUNTS.get(folded, 0)


def announced_count(sentence: str, roots: Sequence[str]) -> int:
    """The number ``sentence`` announces of something the question asks about: a number
    from two to twelve followed, within :data:`NEAR_WORDS` words, by a word of one of
    ``roots`` (the stems of the question's words); 0 when there is none."""
    tokens = words(sentence)
    for i, token in enumerate(tokens):
        count = _count(token)
        if count and any(
            same_root(stem(t), root) for t in tokens[i + 1 : i + 1 + NEAR_WORDS] for root in roots
        ):
            return count
    return 0


def question_roots(analysis: QueryAnalysis) -> list[str]:
    """The stems of the question's keywords that are not part of a name it gives."""
    named = {stem(w) for mention in analysis.matched for w in words(mention)}
    return [s for s in dict.fromkeys(stem(k) for k in analysis.keywords) if s not in named]


async def roll_call(
    store: Store, index: GraphIndex | None, analysis: QueryAnalysis, passages: Sequence[Passage]
) -> RollCall | None:
    """The roll call of the people ``passages`` announce for ``analysis``'s question, or
    ``None`` when the question asks for no set of people or no top passage announces one."""
    if index is None or not asks_for_people(analysis.question):
        return None
    roots = question_roots(analysis)
    for passage in passages[:ANNOUNCING_PASSAGES]:
        for a, b in split_sentences(passage.text):
            count = announced_count(passage.text[a:b], roots)
            if count:
                call = RollCall(count, passage, passage.start + a, passage.start + b)
                call.members = await _members(store, index, analysis, call)
                return call if len(call.members) >= MIN_MEMBERS else None
    return None


async def _members(
    store: Store, index: GraphIndex, analysis: QueryAnalysis, call: RollCall
) -> list[Member]:
    """The people the rest of ``call``'s section names, the most named first."""
    chunks, end = await _read_on(store, call)
    head = call.passage.text[call.start - call.passage.start :]
    text = (head + stitched_text(call.passage.end, chunks[1:]))[: max(0, end - call.start)]
    mentioned = index.entities_in([c.chunk_id for c in chunks])
    ids = list(dict.fromkeys(e for found in mentioned.values() for e in found))
    setting = set(analysis.matched.values())
    heading = call.passage.section.split(SEPARATOR)[-1]
    people = [
        e
        for e in await store.get_entities(ids)
        if e.type == PERSON and e.id not in setting and not _named_in(e, heading)
    ]
    spans = split_sentences(text)
    named = _named_per_sentence(people, text, spans)
    counts: dict[str, int] = {}
    for found in named:
        for entity_id in found:
            counts[entity_id] = counts.get(entity_id, 0) + 1
    order = {entity_id: i for i, entity_id in enumerate(counts)}  # first named first
    ranked = sorted(counts, key=lambda e: (-counts[e], order[e]))[: call.count]
    by_id = {e.id: e for e in people}
    members: list[Member] = []
    for entity_id in ranked:
        a, b = spans[_evidence(entity_id, named)]
        start, stop = call.start + a, call.start + b
        holding = _holding(chunks, start, stop)
        members.append(Member(by_id[entity_id], counts[entity_id], holding, start, stop))
    return members


async def _read_on(store: Store, call: RollCall) -> tuple[list[Passage], int]:
    """The announcing passage and the chunks after it in its section, at most
    :data:`READ_ON_CHUNKS` of them, as passages found by ``roll call``; and the document
    offset where the text read ends (the section's end, or the last chunk's)."""
    passage = call.passage
    ids = [nth_chunk(passage.document_id, passage.seq + k) for k in range(1, READ_ON_CHUNKS + 1)]
    loaded = sorted(await store.get_chunks(ids), key=lambda c: c.seq)
    doc = (await load_documents(store, [passage.document_id])).get(passage.document_id)
    sections = section_index(doc) if doc is not None else None
    end = sections.section_end(call.start) if sections is not None else None
    out = [passage]
    for chunk in loaded:
        if chunk.seq != out[-1].seq + 1 or (end is not None and chunk.start >= end):
            break  # a gap (chunks not found), or the next section
        out.append(
            Passage(
                chunk_id=chunk.id,
                document_id=chunk.document_id,
                document_title=passage.document_title,
                seq=chunk.seq,
                start=chunk.start,
                end=chunk.end,
                text=chunk.text,
                score=0.0,
                found_by=["roll call"],
                document_source=passage.document_source,
                section=sections.path(chunk.start) if sections is not None else "",
            )
        )
    last = out[-1].end
    return out, last if end is None else min(end, last)


def _surfaces(entity: Entity) -> list[str]:
    """The names ``entity`` is written by, longest first."""
    names = {" ".join(n.split()) for n in (entity.name, *entity.aliases)}
    return sorted((n for n in names if len(n) >= 2), key=len, reverse=True)


def _named_in(entity: Entity, text: str) -> bool:
    """Whether ``text`` writes one of ``entity``'s names, as whole words, any case."""
    return any(
        re.search(rf"(?<!\w){re.escape(n)}(?!\w)", text, re.IGNORECASE) for n in _surfaces(entity)
    )


def _named_per_sentence(
    people: Sequence[Entity], text: str, spans: Sequence[tuple[int, int]]
) -> list[dict[str, int]]:
    """For each sentence of ``text`` (``spans``), the people it names, each with the number
    of words before its first name there. A name matches in any case but must be written
    with a capital ("ARTHUR", "Arthur"); a name two people share counts for the most
    mentioned one."""
    owner: dict[str, Entity] = {}
    for person in sorted(people, key=lambda e: e.mention_count):
        for name in _surfaces(person):
            owner[name.casefold()] = person
    if not owner:
        return [{} for _ in spans]
    body = "|".join(re.escape(n) for n in sorted(owner, key=len, reverse=True))
    pattern = re.compile(rf"(?<!\w)(?:{body})(?!\w)", re.IGNORECASE)
    out: list[dict[str, int]] = []
    for a, b in spans:
        found: dict[str, int] = {}
        for m in pattern.finditer(text, a, b):
            if m.group(0)[:1].isupper():
                found.setdefault(owner[m.group(0).casefold()].id, len(words(text[a : m.start()])))
        out.append(found)
    return out


def _evidence(entity_id: str, named: Sequence[dict[str, int]]) -> int:
    """The sentence that is ``entity_id``'s evidence: the first naming it alone and among
    its first :data:`SUBJECT_WORDS` words (most often as the one who acts: "Arthur has just
    gone"), or else the first naming it alone, or else the first naming it."""
    alone = [i for i, found in enumerate(named) if list(found) == [entity_id]]
    early = [i for i in alone if named[i][entity_id] < SUBJECT_WORDS]
    if early or alone:
        return (early or alone)[0]
    return next(i for i, found in enumerate(named) if entity_id in found)


def _holding(chunks: Sequence[Passage], start: int, stop: int) -> Passage:
    """The chunk among ``chunks`` holding the document's text from ``start`` to ``stop``:
    the first that holds all of it, or else the last that starts at or before ``start``."""
    holding = chunks[0]
    for chunk in chunks:
        if chunk.start <= start and stop <= chunk.end:
            return chunk
        if chunk.start <= start:
            holding = chunk
    return holding


def with_members(passages: Sequence[Passage], call: RollCall) -> list[Passage]:
    """``passages`` with the announcing passage of ``call`` cut to its announcing sentence,
    followed by each member's sentence as a passage of its own (found by ``roll call``),
    in document order: a context, and a model answering from it, sees the set and who it
    holds."""
    at = next((i for i, p in enumerate(passages) if p.chunk_id == call.passage.chunk_id), None)
    if at is None:
        return list(passages)
    members = sorted({(m.start, m.end): m for m in call.members}.values(), key=lambda m: m.start)
    score = call.passage.score
    announced = _sentence_passage(call.passage, call.start, call.end, score)
    sentences = [_sentence_passage(m.passage, m.start, m.end, score) for m in members]
    return [*passages[:at], announced, *sentences, *passages[at + 1 :]]


def _sentence_passage(holding: Passage, start: int, end: int, score: float) -> Passage:
    """The text of ``holding`` from document offset ``start`` to ``end`` as a passage."""
    end = min(end, holding.end)
    return Passage(
        chunk_id=holding.chunk_id,
        document_id=holding.document_id,
        document_title=holding.document_title,
        seq=holding.seq,
        start=start,
        end=end,
        text=holding.text[start - holding.start : end - holding.start],
        score=score,
        found_by=[*dict.fromkeys([*holding.found_by, "roll call"])],
        document_source=holding.document_source,
        section=holding.section,
    )
