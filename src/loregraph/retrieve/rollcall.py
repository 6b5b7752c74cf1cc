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

import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass

from loregraph.models import Entity
from loregraph.models import chunk_id as nth_chunk
from loregraph.retrieve.focus import ELISION
from loregraph.retrieve.graphindex import GraphIndex
from loregraph.retrieve.passages import load_documents, stitched_text
from loregraph.retrieve.result import Member, Passage, QueryAnalysis, RollCall
from loregraph.retrieve.sections import SEPARATOR, section_index
from loregraph.retrieve.terms import PEOPLE_NOUNS, asks_for_people
from loregraph.retrieve.trace import RetrievalTrace, Stopwatch
from loregraph.store.base import Store
from loregraph.text.entity_types import PERSON
from loregraph.text.name_finder import NameFinder
from loregraph.text.sentences import split_sentences
from loregraph.text.words import stem, words

FINDER = "roll call"
"""The name a roll call's passages give among their finders (``Passage.found_by``)."""
ANNOUNCING_PASSAGES = 8
"""How many of the top passages are read for an announcing sentence."""
MAX_TRIES = 3
"""How many announcing sentences are read on from, at most, before giving up."""
READ_ON_CHUNKS = 16
"""How many chunks after the announcing one are read, at most, to the section's end."""
UNSECTIONED_CHUNKS = 3
"""How many are read in a document without headings, where the set ends with the
announcing sentence's paragraph."""
NEAR_WORDS = 2
"""How many words after the number the question's word may come ("three young women")."""
MIN_MEMBERS = 2
"""How many people the section must name for a roll call: one name is no set, and the
number announced was likely of something else."""
SUBJECT_WORDS = 3
"""A name among a sentence's first this many words is taken for its subject ("Mr. Quincey
P. Morris found me alone"), which makes the sentence the better evidence."""
MIN_ROOT = 5
"""How many first letters two different stems must share to be one word's ("proposal" and
"proposed" share "propos")."""
MAX_ENDING = 3
"""How many letters the longer of two stems of one word may add to what they share."""

_PARAGRAPH_END = re.compile(r"\n[ \t]*\n")
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
    """Whether stems ``a`` and ``b`` are one word's: equal, or sharing all of the shorter
    but its last letter, :data:`MIN_ROOT` letters at least, with at most
    :data:`MAX_ENDING` letters more in the longer ("proposal"/"propos",
    "marriage"/"marri"; not "sentry"/"sent" or "foundation"/"found")."""
    if a == b:
        return True
    shorter, longer = sorted((a, b), key=len)
    shared = 0
    for x, y in zip(shorter, longer, strict=False):
        if x != y:
            break
        shared += 1
    return shared >= max(MIN_ROOT, len(shorter) - 1) and len(longer) - shared <= MAX_ENDING


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


def question_roots(analysis: QueryAnalysis) -> tuple[list[str], list[str]]:
    """The stems of the question's own words (not of a name it gives, not numbers): those
    of what was done ("proposed"), then those of the people asked for ("men")."""
    named = {stem(w) for mention in analysis.matched for w in words(mention)}
    kept = [k for k in analysis.keywords if stem(k) not in named and not _count(k)]
    done = [stem(k) for k in kept if k.casefold() not in PEOPLE_NOUNS and k.casefold() != "one"]
    people = [stem(k) for k in kept if k.casefold() in PEOPLE_NOUNS]
    return list(dict.fromkeys(done)), list(dict.fromkeys(people))


async def roll_call(
    store: Store, index: GraphIndex | None, analysis: QueryAnalysis, passages: Sequence[Passage]
) -> RollCall | None:
    """The roll call of the people ``passages`` announce for ``analysis``'s question (one
    asking which people did something, :func:`call_roll`), or ``None`` when no top passage
    announces them.

    A number of what was done ("three proposals") is looked for before a number of the
    people asked for ("two men"), each in rank order; at most :data:`MAX_TRIES`
    announcing sentences are read on from until one names :data:`MIN_MEMBERS` people."""
    if index is None:
        return None
    tried: set[tuple[str, int]] = set()
    for roots in question_roots(analysis):
        for passage in passages[:ANNOUNCING_PASSAGES]:
            for a, b in split_sentences(passage.text):
                count = announced_count(passage.text[a:b], roots) if roots else 0
                if not count or (passage.document_id, passage.start + a) in tried:
                    continue
                tried.add((passage.document_id, passage.start + a))
                start, end = passage.start + a, passage.start + b
                call = RollCall(count, passage, start, end, passage.text[a:b])
                call.members = await _members(store, index, analysis, call)
                if len(call.members) >= MIN_MEMBERS:
                    return call
                if len(tried) >= MAX_TRIES:
                    return None
    return None


@dataclass(frozen=True, slots=True)
class _Read:
    """What is read on from an announcing sentence: its chunks (the announcing one first),
    the text from the sentence to the section's end, and the section's heading."""

    chunks: list[Passage]
    text: str
    heading: str


async def _members(
    store: Store, index: GraphIndex, analysis: QueryAnalysis, call: RollCall
) -> list[Member]:
    """The people the rest of ``call``'s section names, the most named first."""
    read = await _read_on(store, call)
    mentioned = index.entities_in([c.chunk_id for c in read.chunks])
    ids = list(dict.fromkeys(e for found in mentioned.values() for e in found))
    setting = set(analysis.matched.values())
    people = [
        e
        for e in await store.get_entities(ids)
        if e.type == PERSON and e.id not in setting and not _named_in(e, read.heading)
    ]
    spans = split_sentences(read.text)
    named = _named_per_sentence(people, read.text, spans)
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
        holding = _holding(read.chunks, start, stop)
        text = read.text[a:b]
        members.append(Member(by_id[entity_id], counts[entity_id], holding, start, stop, text))
    return members


async def _read_on(store: Store, call: RollCall) -> _Read:
    """The chunks after ``call``'s in its section, at most :data:`READ_ON_CHUNKS` of them
    (:data:`UNSECTIONED_CHUNKS` in a document without headings, whose text is read to the
    paragraph's end), as passages found by ``roll call``; the text read, and the heading of
    the announcing sentence's section."""
    passage = call.passage
    doc = (await load_documents(store, [passage.document_id])).get(passage.document_id)
    sections = section_index(doc) if doc is not None and doc.metadata.get("sections") else None
    end = sections.section_end(call.start) if sections is not None else None
    reach = READ_ON_CHUNKS if sections is not None else UNSECTIONED_CHUNKS
    ids = [nth_chunk(passage.document_id, passage.seq + k) for k in range(1, reach + 1)]
    loaded = sorted(await store.get_chunks(ids), key=lambda c: c.seq)
    chunks = [passage]
    for chunk in loaded:
        if chunk.seq != chunks[-1].seq + 1 or (end is not None and chunk.start >= end):
            break  # a gap (chunks not found), or the next section
        section = sections.path(chunk.start) if sections is not None else ""
        title, source = passage.document_title, passage.document_source
        chunks.append(Passage.of_chunk(chunk, title, source, 0.0, [FINDER], section))
    stop = chunks[-1].end if end is None else min(end, chunks[-1].end)
    head = passage.text[call.start - passage.start :]
    text = (head + stitched_text(passage.end, chunks[1:]))[: max(0, stop - call.start)]
    if sections is None:  # no heading ends the set: its paragraph does
        paragraph = _PARAGRAPH_END.search(text)
        text = text[: paragraph.start()] if paragraph else text
    path = sections.path(call.start) if sections is not None else passage.section
    return _Read(chunks, text, path.split(SEPARATOR)[-1])


def _named_in(entity: Entity, text: str) -> bool:
    """Whether ``text`` writes one of ``entity``'s names, as whole words, any case."""
    return bool(NameFinder([entity]).find(text))


def _named_per_sentence(
    people: Sequence[Entity], text: str, spans: Sequence[tuple[int, int]]
) -> list[dict[str, int]]:
    """For each sentence of ``text`` (``spans``), the people it names, each with the number
    of words before its first name there. A name matches in any case but must be written
    with a capital ("ARTHUR", "Arthur"); a name two people share counts for the most
    mentioned one."""
    finder = NameFinder(sorted(people, key=lambda e: -e.mention_count))
    out: list[dict[str, int]] = []
    for a, b in spans:
        found: dict[str, int] = {}
        for start, _, entity_id in finder.find(text, a, b):
            if text[start].isupper():
                found.setdefault(entity_id, len(words(text[a:start])))
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


def with_members(
    passages: Sequence[Passage], reserve: Sequence[Passage], call: RollCall, limit: int
) -> tuple[list[Passage], list[Passage]]:
    """The passages and the reserve of a retrieval that made roll call ``call``: the
    announcing passage gives its place to :func:`called_passage` and goes first into the
    reserve, and the passages are cut to ``limit`` again."""
    listed = [called_passage(call) if p is call.passage else p for p in passages]
    kept = [p for p in listed[:limit]]
    return kept, [*listed[limit:], call.passage, *reserve]


def called_passage(call: RollCall) -> Passage:
    """The announcing sentence of ``call`` and each member's, in document order and apart
    by an ellipsis, as one passage of the announcing chunk (a context, and a model answering
    from it, see the set and who it holds)."""
    spans = {(call.start, call.end): call.text}
    for member in call.members:
        spans.setdefault((member.start, member.end), member.text)
    ordered = sorted(spans)
    text = f" {ELISION} ".join(" ".join(spans[span].split()) for span in ordered)
    found_by = [*dict.fromkeys([*call.passage.found_by, FINDER])]
    start, end = ordered[0][0], max(e for _, e in ordered)
    return dataclasses.replace(call.passage, text=text, start=start, end=end, found_by=found_by)


async def call_roll(
    store: Store,
    index: GraphIndex | None,
    analysis: QueryAnalysis,
    passages: Sequence[Passage],
    reserve: Sequence[Passage],
    limit: int,
    trace: RetrievalTrace,
) -> tuple[RollCall | None, list[Passage], list[Passage]]:
    """The roll call for a question asking which people did something (recorded as the
    ``roll_call`` stage), and the passages and reserve with its passage in place; for any
    other question, ``None`` and the passages and reserve as they were."""
    if not asks_for_people(analysis.question):
        return None, list(passages), list(reserve)
    watch = Stopwatch()
    call = await roll_call(store, index, analysis, passages)
    trace.record("roll_call", watch.ms(), len(call.members) if call else 0)
    if call is None:
        return None, list(passages), list(reserve)
    return call, *with_members(passages, reserve, call, limit)
