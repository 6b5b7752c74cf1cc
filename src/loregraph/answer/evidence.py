"""Which sentences of the retrieved passages are evidence for a question, and how much.

Each sentence of each passage is a :class:`Candidate`. The :class:`Scorer` finds what it
matches: the question's keywords, the entities the question names (weighing most), the
other start entities and the rest of the retrieved neighbourhood (weighing less), the
retrieved facts it states (a bonus, a full one on a path between named entities), and what
the answer must hold (a name for "who", a number for "how many"). Fragments, headings and
sentences cut by a chunk's edge are marked down; a passage ranked higher lends its sentences
a small prior. :mod:`.extractive` chooses and quotes the best of them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from loregraph.models import CO_OCCURS
from loregraph.retrieve.results.result import Passage, RetrievalResult
from loregraph.retrieve.results.terms import wanted_types
from loregraph.text.sentences import split_sentences
from loregraph.text.words import stem, words

NAMED_WEIGHT = 2.0
SEED_NAME_WEIGHT = 0.75
ENTITY_NAME_WEIGHT = 0.25
KEYWORD_WEIGHT = 1.0
FACT_WEIGHT = 1.5
ENDED_FACTOR = 0.5
"""A sentence whose only support among the retrieved facts is a fact that has ended (a
context showing ended facts: ``show_ended``) counts this much: current facts rank first."""
RANK_PRIOR = 0.5
REPEAT_FACTOR = 0.5
SHORT_SENTENCE = 6
TOP_ENTITIES = 12
TOP_RELATIONS = 20
SHAPE_WEIGHT = 1.0
"""What a sentence holding one of the question's words (not only a name it gives) earns for
each name (or number) it holds that the question asks for and does not itself hold, at most
:data:`SHAPE_ITEMS` of them (measured on the questions of ``bench/longdoc.py``)."""
SHAPE_ITEMS = 2


@dataclass(slots=True)
class Candidate:
    passage: Passage
    passage_rank: int
    start: int  # offset in the chunk
    end: int
    text: str
    features: dict[str, float]  # what the sentence matches, with each match's weight
    factor: float  # length and cut-sentence penalties
    prior: float  # bonus from its passage's rank
    words: frozenset[str]

    @property
    def doc_start(self) -> int:
        return self.passage.start + self.start

    @property
    def doc_end(self) -> int:
        return self.passage.start + self.end

    def score(self, covered: set[str]) -> float:
        """Feature weights (halved for what chosen sentences already cover), plus prior."""
        gain = sum(w * (REPEAT_FACTOR if f in covered else 1.0) for f, w in self.features.items())
        return self.factor * gain + self.prior


def _name_pattern(names: set[str]) -> re.Pattern[str] | None:
    cleaned = sorted({n.strip() for n in names if len(n.strip()) >= 2}, key=len, reverse=True)
    if not cleaned:
        return None
    body = "|".join(re.escape(n) for n in cleaned)
    return re.compile(rf"(?<!\w)(?:{body})(?!\w)", re.IGNORECASE)


class Scorer:
    """Finds what a sentence matches: question keywords, entity names, retrieved facts.

    Entities the question names weigh most, other seeds less, the rest of the retrieved
    neighbourhood least; stating a retrieved typed relation that involves a named entity
    earns a bonus, a full one when the relation lies on a path between named entities.
    """

    def __init__(self, result: RetrievalResult) -> None:
        self.keywords = {stem(k) for k in result.analysis.keywords}
        name_words = {stem(w) for mention in result.analysis.matched for w in words(mention)}
        self.content = self.keywords - name_words  # the question's words that are no name
        self.focus = result.focus
        named_ids = set(result.analysis.matched.values())
        self.named_ids = named_ids
        seed_ids = {s.entity.id for s in result.start_entities}
        known = {r.entity.id: r.entity for r in result.entities[:TOP_ENTITIES]}
        known.update({s.entity.id: s.entity for s in result.start_entities})
        self.names = {entity_id: entity.name for entity_id, entity in known.items()}
        self.types = {entity_id: entity.type for entity_id, entity in known.items()}
        self.wanted = wanted_types(result.question)
        self.surfaces: dict[str, tuple[str, float]] = {}
        for entity_id, entity in known.items():
            if entity_id in named_ids:
                weight = NAMED_WEIGHT
            elif entity_id in seed_ids:
                weight = SEED_NAME_WEIGHT
            else:
                weight = ENTITY_NAME_WEIGHT
            for name in {entity.name, *entity.aliases}:
                key = name.strip().casefold()
                if weight > self.surfaces.get(key, ("", -1.0))[1]:
                    self.surfaces[key] = (entity_id, weight)
        for mention, entity_id in result.analysis.matched.items():
            self.surfaces.setdefault(mention.strip().casefold(), (entity_id, NAMED_WEIGHT))
        self.pattern = _name_pattern(set(self.surfaces))
        typed = [r for r in result.relations[:TOP_RELATIONS] if r.relation.type != CO_OCCURS]
        # entities linking two or more named ones ("Meridian" between a captain and an island)
        linked: dict[str, set[str]] = {}
        for ranked in typed:
            a, b = ranked.relation.source_id, ranked.relation.target_id
            if a in named_ids:
                linked.setdefault(b, set()).add(a)
            if b in named_ids:
                linked.setdefault(a, set()).add(b)
        on_path = named_ids | {e for e, ends in linked.items() if len(ends) >= 2}
        self.facts: list[tuple[str, str, str, str, float]] = []
        self.ended: list[tuple[str, str, str]] = []  # ended facts: (source, target, text)
        for ranked in typed:
            rel = ranked.relation
            if ranked.replaced_by:  # ended (by its validity data): no support
                texts = [_norm(rel.fact), *(_norm(ev.sentence) for ev in rel.evidence)]
                pair = ranked.source_name.casefold(), ranked.target_name.casefold()
                self.ended.extend((*pair, text) for text in texts)
                continue
            ends = {rel.source_id, rel.target_id}
            if named_ids and not ends & named_ids:
                continue
            weight = FACT_WEIGHT if not named_ids or ends <= on_path else FACT_WEIGHT / 2
            texts = [_norm(rel.fact), *(_norm(ev.sentence) for ev in rel.evidence)]
            source, target = ranked.source_name.casefold(), ranked.target_name.casefold()
            self.facts.extend((rel.id, source, target, text, weight) for text in texts)

    def matches(self, sentence: str) -> list[re.Match[str]]:
        """The known names in ``sentence``."""
        if self.pattern is None:
            return []
        return list(self.pattern.finditer(sentence))

    def features(self, sentence: str, tokens: list[str]) -> dict[str, float]:
        """The sentence's matched features (given its words) and their weights."""
        matches = self.matches(sentence)
        stems = {stem(w) for w in tokens}
        found = {f"k:{k}": KEYWORD_WEIGHT for k in self.keywords & stems}
        for match in matches:
            entity_id, weight = self.surfaces[match.group(0).casefold()]
            key = f"e:{entity_id}"
            found[key] = max(found.get(key, 0.0), weight)
        # the shape counts in a sentence about what is asked
        if self.content & stems:
            items = self.focus.shape_matches(sentence)
            if self.focus.shape == "name":  # a known name opening the sentence is one too
                items = list(dict.fromkeys([*self._names_of_kind(matches), *items]))
            for item in items[:SHAPE_ITEMS]:
                found[f"s:{' '.join(item.casefold().split())}"] = SHAPE_WEIGHT
        lowered = sentence.casefold()
        normed = " ".join(w.casefold() for w in tokens)
        for rel_id, source, target, fact, weight in self.facts:
            if (source in lowered and target in lowered) or (fact and fact in normed):
                found[f"r:{rel_id}"] = max(found.get(f"r:{rel_id}", 0.0), weight)
        return found

    def only_ended(self, sentence: str, tokens: list[str], features: dict[str, float]) -> bool:
        """Whether ``sentence`` states a fact that has ended and no current one."""
        if not self.ended or any(key.startswith("r:") for key in features):
            return False
        lowered = sentence.casefold()
        normed = " ".join(w.casefold() for w in tokens)
        return any(
            (source in lowered and target in lowered) or (text and text in normed)
            for source, target, text in self.ended
        )

    def _names_of_kind(self, matches: list[re.Match[str]]) -> list[str]:
        """The known names in ``matches`` of the kind asked for (a person for "who", a place
        for "where"; none when any kind may answer) that the question does not give
        ("Arthur took the stake…" for "Who drove the stake…?")."""
        out: list[str] = []
        for match in matches:
            entity_id = self.surfaces[match.group(0).casefold()][0]
            kind = self.types.get(entity_id)
            if entity_id not in self.named_ids and kind in self.wanted:
                out.append(match.group(0))
        return out

    def about(self, sentence: str) -> bool:
        """Whether ``sentence`` holds one of the question's words that is not a name."""
        return bool(self.content & {stem(w) for w in words(sentence)})

    def named(self, sentence: str) -> list[str]:
        """The known entities of the wanted types that ``sentence`` names and the question
        does not, when the sentence is about what the question asks (:meth:`about`)."""
        if self.pattern is None or not self.about(sentence):
            return []
        ids = (self.surfaces[m.group(0).casefold()][0] for m in self.matches(sentence))
        return [
            e
            for e in dict.fromkeys(ids)
            if e not in self.named_ids
            and e in self.names
            and (not self.wanted or self.types[e] in self.wanted)
        ]


def _norm(text: str) -> str:
    return " ".join(w.casefold() for w in words(text))


def candidates(result: RetrievalResult, scorer: Scorer) -> list[Candidate]:
    out: list[Candidate] = []
    for rank, passage in enumerate(result.passages):
        spans = split_sentences(passage.text)
        for i, (a, b) in enumerate(spans):
            text = passage.text[a:b]
            tokens = words(text)
            word_set = frozenset(w.casefold() for w in tokens)
            factor = 1.0
            n_words = len(tokens)
            if n_words < SHORT_SENTENCE:
                factor *= 0.5  # fragments and headings say little
            elif n_words > 80:
                factor *= 0.7
            if not any(ch.islower() for ch in text):
                factor *= 0.3  # an all-capitals heading, not a statement
            if i == 0 and passage.start > 0 and text[:1].islower():
                factor *= 0.5  # starts mid-sentence where the chunk was cut
            if i == len(spans) - 1 and not re.search(r"[.!?…][\"'”’)\]]*$", text):
                factor *= 0.5  # ends mid-sentence
            features = scorer.features(text, tokens)
            if scorer.only_ended(text, tokens, features):
                factor *= ENDED_FACTOR
            prior = RANK_PRIOR / (1 + rank)
            out.append(Candidate(passage, rank, a, b, text, features, factor, prior, word_set))
    return out
