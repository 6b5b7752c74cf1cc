"""The offline answer: the best evidence sentences of the retrieved passages, quoted verbatim.

With no LLM configured, loregraph does not paraphrase: it picks the sentences of the top
passages that best match the question (its keywords, the entities it names, the relation
facts retrieved), drops the repeats that overlapping chunks produce, and quotes them in
document order, each with a numbered citation giving its document and character offsets.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from loregraph.answer.types import Answer, Citation
from loregraph.models import CO_OCCURS
from loregraph.retrieve.result import Passage, RetrievalResult
from loregraph.retrieve.textutil import stem, words

__all__ = ["Answer", "Citation", "extractive_answer", "split_sentences"]

NO_LLM = "No LLM is configured, so this answer quotes the most relevant passages."
NO_PASSAGES = (
    "No LLM is configured, and no passage in the store matches this question, "
    "so there is nothing to quote."
)

_ABBREVIATIONS = """
    dr mr mrs ms mx st prof jr sr vs etc eg ie e.g i.e no nos mt capt col gen lt sgt rev hon
    fr messrs mme mlle dept fig figs vol vols ch chap ca cf inc ltd co corp jan feb mar apr
    jun jul aug sep sept oct nov dec approx esp al op pp ed eds est govt univ
"""
ABBREVIATIONS = frozenset(_ABBREVIATIONS.split())
"""Words that end with a period without ending the sentence (``Dr.``, ``Mrs.``, ``e.g.``)."""

_END = re.compile(r"[.!?…]+[\"'”’)\]]*(?=\s|$)|\n[ \t]*\n")
_WORD_BEFORE = re.compile(r"([\w.]+)$")
_NEXT_CHAR = re.compile(r"\s*(\S)")

SEED_NAME_WEIGHT = 2.0
ENTITY_NAME_WEIGHT = 0.5
KEYWORD_WEIGHT = 1.0
FACT_WEIGHT = 1.5
RANK_PRIOR = 0.5
DUPLICATE_JACCARD = 0.8
TOP_ENTITIES = 12
TOP_RELATIONS = 20


def _is_boundary(text: str, match: re.Match[str]) -> bool:
    mark = match.group(0)
    if mark.startswith("\n"):
        return True
    if mark[0] == "." and len(mark.rstrip("\"'”’)]")) == 1:
        before = _WORD_BEFORE.search(text, 0, match.start())
        if before:
            word = before.group(1).casefold()
            if word in ABBREVIATIONS or word.rstrip(".") in ABBREVIATIONS:
                return False
            if len(word) == 1 and word.isalpha():  # an initial: "J. Smith"
                return False
    nxt = _NEXT_CHAR.match(text, match.end())
    return not (nxt and nxt.group(1).islower())  # '"Is it so?" she asked.' is one


def split_sentences(text: str) -> list[tuple[int, int]]:
    """Sentence spans ``(start, end)`` of ``text``, whitespace trimmed, in order.

    Ends at ``.``, ``!``, ``?`` (with closing quotes/brackets) followed by space, and at
    blank lines; not after common abbreviations (``Dr.``, ``Mrs.``), single initials or
    when the next word starts in lower case.
    """
    spans: list[tuple[int, int]] = []
    start = 0
    for match in _END.finditer(text):
        if not _is_boundary(text, match):
            continue
        end = match.end() if not match.group(0).startswith("\n") else match.start()
        spans.append((start, end))
        start = match.end()
    spans.append((start, len(text)))
    out: list[tuple[int, int]] = []
    for a, b in spans:
        while a < b and text[a].isspace():
            a += 1
        while b > a and text[b - 1].isspace():
            b -= 1
        if b > a and any(ch.isalnum() for ch in text[a:b]):
            out.append((a, b))
    return out


@dataclass(slots=True)
class _Candidate:
    passage: Passage
    passage_rank: int
    start: int  # offset in the chunk
    end: int
    text: str
    score: float
    stems: frozenset[str]

    @property
    def doc_start(self) -> int:
        return self.passage.start + self.start

    @property
    def doc_end(self) -> int:
        return self.passage.start + self.end


def _name_pattern(names: set[str]) -> re.Pattern[str] | None:
    cleaned = sorted({n.strip() for n in names if len(n.strip()) >= 2}, key=len, reverse=True)
    if not cleaned:
        return None
    body = "|".join(re.escape(n) for n in cleaned)
    return re.compile(rf"(?<!\w)(?:{body})(?!\w)", re.IGNORECASE)


class _Scorer:
    """Scores sentences against the question, its entities and the retrieved facts."""

    def __init__(self, result: RetrievalResult) -> None:
        self.keywords = {stem(k) for k in result.analysis.keywords}
        seed_ids = {s.entity.id for s in result.seeds} | set(result.analysis.matched.values())
        seed_names: set[str] = set(result.analysis.matched)
        other_names: set[str] = set()
        for ranked in result.entities[:TOP_ENTITIES]:
            names = {ranked.entity.name, *ranked.entity.aliases}
            (seed_names if ranked.entity.id in seed_ids else other_names).update(names)
        for seed in result.seeds:
            seed_names.update({seed.entity.name, *seed.entity.aliases})
        self.seed_pattern = _name_pattern(seed_names)
        self.other_pattern = _name_pattern(other_names - seed_names)
        self.facts: list[tuple[str, str, str]] = []
        for rel in result.relations[:TOP_RELATIONS]:
            if rel.relation.type == CO_OCCURS:
                continue
            self.facts.append(
                (rel.source_name.casefold(), rel.target_name.casefold(), _norm(rel.relation.fact))
            )

    def score(self, sentence: str, stems: frozenset[str]) -> float:
        score = KEYWORD_WEIGHT * len(self.keywords & stems)
        if self.seed_pattern is not None:
            score += SEED_NAME_WEIGHT * len(
                {m.group(0).casefold() for m in self.seed_pattern.finditer(sentence)}
            )
        if self.other_pattern is not None:
            score += ENTITY_NAME_WEIGHT * len(
                {m.group(0).casefold() for m in self.other_pattern.finditer(sentence)}
            )
        lowered = sentence.casefold()
        normed = _norm(sentence)
        for source, target, fact in self.facts:
            if (source in lowered and target in lowered) or (fact and fact in normed):
                score += FACT_WEIGHT
                break
        return score


def _norm(text: str) -> str:
    return " ".join(w.casefold() for w in words(text))


def _candidates(result: RetrievalResult, scorer: _Scorer) -> list[_Candidate]:
    out: list[_Candidate] = []
    for rank, passage in enumerate(result.passages):
        spans = split_sentences(passage.text)
        for i, (a, b) in enumerate(spans):
            text = passage.text[a:b]
            stems = frozenset(stem(w) for w in words(text))
            score = scorer.score(text, stems) + RANK_PRIOR / (1 + rank)
            n_words = len(words(text))
            if n_words < 4:
                score *= 0.5
            elif n_words > 80:
                score *= 0.7
            if i == 0 and passage.start > 0 and text[:1].islower():
                score *= 0.5  # starts mid-sentence where the chunk was cut
            if i == len(spans) - 1 and not re.search(r"[.!?…][\"'”’)\]]*$", text):
                score *= 0.5  # ends mid-sentence
            out.append(_Candidate(passage, rank, a, b, text, score, stems))
    return out


def _is_duplicate(cand: _Candidate, chosen: list[_Candidate]) -> bool:
    for other in chosen:
        if cand.passage.document_id == other.passage.document_id and (
            cand.doc_start < other.doc_end and other.doc_start < cand.doc_end
        ):
            return True
        union = cand.stems | other.stems
        if union and len(cand.stems & other.stems) / len(union) >= DUPLICATE_JACCARD:
            return True
    return False


def extractive_answer(result: RetrievalResult, max_sentences: int = 5) -> Answer:
    """An answer quoting the best evidence sentences of ``result`` verbatim, with citations."""
    if not result.passages or max_sentences <= 0:
        return Answer(question=result.question, text=NO_PASSAGES, retrieval=result)

    scorer = _Scorer(result)
    ranked = sorted(_candidates(result, scorer), key=lambda c: (-c.score, c.passage_rank, c.start))
    chosen: list[_Candidate] = []
    for cand in ranked:
        if len(chosen) >= max_sentences:
            break
        if not _is_duplicate(cand, chosen):
            chosen.append(cand)

    doc_order: dict[str, int] = {}
    for passage in result.passages:
        doc_order.setdefault(passage.document_id, len(doc_order))
    chosen.sort(key=lambda c: (doc_order[c.passage.document_id], c.doc_start))

    citations: list[Citation] = []
    body: list[str] = []
    for index, cand in enumerate(chosen, start=1):
        citations.append(
            Citation(
                index=index,
                document_id=cand.passage.document_id,
                document_title=cand.passage.document_title,
                chunk_id=cand.passage.chunk_id,
                seq=cand.passage.seq,
                start=cand.doc_start,
                end=cand.doc_end,
                quote=cand.text,
            )
        )
        body.append(f"{' '.join(cand.text.split())} [{index}]")
    sources = [
        f"[{c.index}] {c.document_title}, chunk {c.seq} (characters {c.start}–{c.end})"
        for c in citations
    ]
    text = "\n\n".join([NO_LLM, "\n".join(body), "Sources:\n" + "\n".join(sources)])
    return Answer(
        question=result.question, text=text, citations=citations, llm=False, retrieval=result
    )
