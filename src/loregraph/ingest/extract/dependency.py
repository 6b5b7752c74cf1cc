"""Typed relations between the entities of one sentence, read off the dependency parse.

Patterns (``S``, ``O`` entity mentions; relation type in UPPER_SNAKE_CASE from the verb's
lemma in the third person present, plus particle and preposition):

* subject–verb–object: "Van Helsing met Seward" → (Van Helsing, ``MEETS``, Seward);
* subject–verb–preposition–object: "Harker travelled to Bistritz" → ``TRAVELS_TO``;
* passive with an agent is turned active: "Lucy was bitten by Dracula" → (Dracula,
  ``BITES``, Lucy); passive without an agent keeps the participle: "Lucy was buried in
  Hampstead" → (Lucy, ``IS_BURIED_IN``, Hampstead);
* copula or appositive with a noun and "of"/a possessive: "Lothair II was a king of
  Lotharingia" and "Lothair II, king of Lotharingia" → ``IS_KING_OF``; "Lucy is Mina's
  friend" → ``IS_FRIEND_OF``;
* an entity with a prepositional modifier: "Bistritz in Transylvania" → ``IN`` (also
  ``AT``, ``NEAR``, ``OF``, ``FROM``);
* a common-noun subject named by one entity as its compound modifier stands for that
  entity: "The API server depends on Express" → (API, ``DEPENDS_ON``, Express);
* subjects are shared by conjoined and controlled verbs ("came … and met Seward", "decided
  to visit London"), and conjoined subjects and objects each get the relation;
* a past participle modifying a noun is a passive: "the boxes sent by X" → (X, ``SENDS``,
  boxes).

Nothing comes from: a negated verb; a verb or noun whose lemma is not a known word of its
part of speech (see :func:`~.spacy_nlp.lemmatizer_of`: no "BRES" from a mis-lemmatised
"bring"); a preposition that is not an English one; a naming verb in the passive ("X,
also known as Y", "X is called Y": two names of one thing, not two things); the direct
object of a verb of saying ("I said 'Finis'"). A subject pronoun (he/she/it) is returned
as a placeholder (:data:`HE_SHE`, :data:`IT`) for the caller to resolve
(coreference-lite); so is whatever the caller's ``owner`` maps to a negative code
(:data:`NARRATOR`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

from loregraph.text.words import PREPOSITIONS

HE_SHE = -1
"""Endpoint placeholder: a he/she subject pronoun."""
IT = -2
"""Endpoint placeholder: an "it" subject pronoun."""
NARRATOR = -3
"""Endpoint placeholder: "I"/"me" outside quotation marks (the narrator of a diary)."""

_PRONOUNS = {"he": HE_SHE, "she": HE_SHE, "it": IT}
_SUBJECT = {"nsubj", "nsubjpass"}
_OBJECT = {"dobj", "dative", "oprd"}
_COPULAS = {"be", "become", "remain"}
NOUN_PREPS = frozenset({"in", "at", "near", "of", "from"})
"""Prepositions that relate an entity to the entity it modifies ("Bistritz in Transylvania")."""
"""English prepositions: a preposition the parser found must be one of these ("og" in a
Norwegian name is not)."""
_SET_ASIDE = frozenset({"instead", "rather"})
"""Words before a preposition whose object is set aside, not related ("instead of")."""
_NAMING = frozenset({"know", "call", "name", "nickname", "dub", "rename", "term", "refer", "style"})
"""Verbs that, in the passive ("X, also known as Y", "X is called Y"), give a second name of
the same thing: no relation between two entities."""
_SPEECH = frozenset(
    {"say", "reply", "answer", "exclaim", "shout", "cry", "murmur", "whisper", "mutter", "add"}
)
"""Verbs whose direct object is what is said ("I said 'Finis'"), not an entity acted on."""
_IRREGULAR = {"be": "IS", "have": "HAS", "do": "DOES", "go": "GOES"}
_SAFE = re.compile(r"[^A-Z0-9]+")
MAX_PARTS = 4

Owner = Callable[[Any], int | None]
Lemma = Callable[[Any, str], str]
Triple = tuple[int, str, int]


def third_person(lemma: str) -> str:
    """The third person singular present of a verb lemma, upper-cased: travel → TRAVELS."""
    word = lemma.lower()
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    if re.search(r"(s|sh|ch|x|z|o)$", word):
        word += "es"
    elif re.search(r"[^aeiou]y$", word):
        word = word[:-1] + "ies"
    else:
        word += "s"
    return word.upper()


def relation_type(*parts: str) -> str:
    """UPPER_SNAKE_CASE from parts; empty parts skipped: ("IS", "king", "of") → IS_KING_OF."""
    words = [_SAFE.sub("_", p.upper()).strip("_") for p in parts if p]
    return "_".join(w for w in words if w)


def _conjuncts(token: Any) -> Iterator[Any]:
    yield token
    for child in token.children:
        if child.dep_ == "conj":
            yield from _conjuncts(child)


def _subjects(verb: Any, depth: int = 0) -> list[Any]:
    direct = [c for c in verb.children if c.dep_ in _SUBJECT]
    if len(direct) > 1:  # a parse error ("Mem., I must ask"): the nearest one is the subject
        direct = [min(direct, key=lambda c: abs(verb.i - c.i))]
    found = [t for c in direct for t in _conjuncts(c)]
    if found or depth > 3:
        return found
    if verb.dep_ == "xcomp" and verb.head is not verb:
        # object control: in "directed me to go", the one who goes is the object
        objects = [c for c in verb.head.children if c.dep_ in _OBJECT]
        return objects[:1] if objects else _subjects(verb.head, depth + 1)
    if verb.dep_ == "conj" and verb.head is not verb:
        return _subjects(verb.head, depth + 1)
    if verb.dep_ == "acl" and verb.head is not verb:
        return [verb.head]
    return []


def _named_by_compound(token: Any, owner: Owner) -> int | None:
    """The entity a common-noun subject is named by through one compound modifier ("the API
    server" → API), or None when no single entity names it."""
    named = {owner(c) for c in token.children if c.dep_ == "compound"} - {None}
    return named.pop() if len(named) == 1 else None


def _prep_objects(prep: Any) -> Iterator[Any]:
    for child in prep.children:
        if child.dep_ == "pobj":
            yield from _conjuncts(child)


def _is_passive(verb: Any) -> bool:
    """A passive verb, or a past participle modifying a noun ("the boxes sent by X")."""
    if verb.dep_ == "acl" and verb.tag_ == "VBN":
        return True
    return any(c.dep_ in ("auxpass", "nsubjpass") for c in verb.children)


def _is_prep(token: Any, allowed: frozenset[str] = PREPOSITIONS) -> bool:
    """An English preposition that relates its object to its head: not one that names what
    is set aside ("depends on X instead of Y", "rather than Y": Y is no target)."""
    if token.dep_ != "prep" or token.lower_ not in allowed:
        return False
    before = token.doc[token.i - 1].lower_ if token.i > 0 else ""
    set_aside = any(c.dep_ == "advmod" and c.lower_ in _SET_ASIDE for c in token.children)
    return not set_aside and before not in _SET_ASIDE


def _preps(verb: Any) -> Iterator[Any]:
    """The verb's prepositional children that are English prepositions."""
    for child in verb.children:
        if _is_prep(child):
            yield child


def sentence_relations(sent: Any, owner: Owner, lemma: Lemma) -> list[Triple]:
    """(source, type, target) triples among the entity mentions of a parsed sentence.

    ``owner(token)`` gives the index of the entity mention a token belongs to (or None);
    endpoints are those indexes, or :data:`HE_SHE` / :data:`IT` for subject pronouns (at
    most one end of a triple is a pronoun).
    """
    out: dict[Triple, None] = {}

    def endpoint(token: Any) -> int | None:
        found = owner(token)
        if found is not None:
            return found
        if token.dep_ not in _SUBJECT:
            return None
        return _PRONOUNS.get(token.lower_, _named_by_compound(token, owner))

    def emit(src: int | None, kind: str, dst: int | None) -> None:
        if src is None or dst is None or src == dst or (src < 0 and dst < 0) or not kind:
            return
        if kind.count("_") >= MAX_PARTS:
            return
        out[(src, kind, dst)] = None

    for verb in sent:
        if not verb.tag_.startswith("VB") or verb.dep_ in ("aux", "auxpass"):
            continue
        if any(c.dep_ == "neg" for c in verb.children):
            continue
        subjects = [s for s in (endpoint(t) for t in _subjects(verb)) if s is not None]
        if not subjects:
            continue
        _verb_relations(verb, subjects, owner, lemma, emit)
    for token in sent:
        mine = owner(token)
        if token.dep_ == "appos" and mine is None:
            head = owner(token.head)
            if head is not None:
                _noun_relations(token, head, "IS", owner, lemma, emit)
        elif mine is not None:
            for child in token.children:
                if _is_prep(child, NOUN_PREPS):
                    for obj in _prep_objects(child):
                        emit(mine, child.lower_.upper(), owner(obj))
    return list(out)


def _verb_relations(
    verb: Any,
    subjects: list[int],
    owner: Owner,
    lemma: Lemma,
    emit: Callable[[int | None, str, int | None], None],
) -> None:
    base_lemma = lemma(verb, "VERB")
    if not base_lemma:  # not a known verb: a tagging error or a broken word
        return
    particle = "_".join(c.lower_ for c in verb.children if c.dep_ == "prt")
    if _is_passive(verb):
        if base_lemma in _NAMING:
            return
        agents = [owner(o) for c in verb.children if c.dep_ == "agent" for o in _prep_objects(c)]
        active = relation_type(third_person(base_lemma), particle)
        for agent in agents:
            for subject in subjects:
                emit(agent, active, subject)
        for prep in _preps(verb):
            kind = relation_type("IS", verb.lower_, particle, prep.lower_)
            for obj in _prep_objects(prep):
                for subject in subjects:
                    emit(subject, kind, owner(obj))
        return
    base = relation_type(third_person(base_lemma), particle)
    for child in verb.children:
        if child.dep_ in _OBJECT and base_lemma not in _SPEECH:
            for obj in _conjuncts(child):
                for subject in subjects:
                    emit(subject, base, owner(obj))
        elif _is_prep(child):
            kind = relation_type(base, child.lower_)
            for obj in _prep_objects(child):
                for subject in subjects:
                    emit(subject, kind, owner(obj))
        elif child.dep_ == "attr" and base_lemma in _COPULAS:
            for attr in _conjuncts(child):
                target = owner(attr)
                for subject in subjects:
                    if target is not None:
                        emit(subject, base, target)
                    else:
                        _noun_relations(attr, subject, base, owner, lemma, emit)


def _noun_relations(
    noun: Any,
    subject: int,
    copula: str,
    owner: Owner,
    lemma: Lemma,
    emit: Callable[[int | None, str, int | None], None],
) -> None:
    """'<subject> is a <noun> of <X>' / '<subject>, <X>'s <noun>' → IS_<NOUN>_OF."""
    if not noun.tag_.startswith("NN"):
        return
    word = lemma(noun, "NOUN")
    if not word:
        return
    for child in noun.children:
        if _is_prep(child):
            kind = relation_type(copula, word, child.lower_)
            for obj in _prep_objects(child):
                emit(subject, kind, owner(obj))
        elif child.dep_ == "poss":
            emit(subject, relation_type(copula, word, "of"), owner(child))
