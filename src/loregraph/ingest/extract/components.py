"""Names of a team's software world that the tagger misses or mistypes (agent memories).

The tagger is trained on news: it reads "Hono" and "Redis" as places or people, and it
never tags lower-case things. Three steps of the offline extractor, on each parsed piece:

* **Code-shaped tokens** (:func:`~loregraph.text.code_shapes.code_kind`): a path
  (``src/app.py`` is a ``File``, ``lib/common/`` a ``Module``), a file name with a file
  extension (``uv.lock``, ``.env``), an environment variable (``DATABASE_URL``:
  ``Config``), a call (``handle_webhook()``: ``Function``), a dotted setting
  (``ui.dark_mode``: ``Config``), camel or snake case (``useSession``, ``parse_config``:
  ``Function``) become entities wherever they stand, in backticks or not.
* **Named components** (:func:`component_name`): a noun chunk whose head noun names a kind
  of component (:func:`~loregraph.text.entity_types.known_type` of the noun is ``Service``,
  ``Module`` or ``Config``: service, server, pipeline, worker, module, timeout, ...) and that
  the sentence treats as one particular thing ("the billing service", "the API server",
  "the request timeout") becomes an entity named by the chunk without its determiner.
* **Software by its sentence** (:func:`software_evidence`): a one-word name the tagger
  calls a place, person, organisation or product is ``Library`` when the words that govern
  it are those of using software ("migrated … to Hono", "Redis restarts", "depends on
  Valkey", "installed Sentry"), when a version number follows it ("Valkey 8") or when it
  is written in lower case (``redis``, ``npm``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from loregraph.text.code_shapes import code_kind, words
from loregraph.text.entity_types import (
    CONFIG,
    CONVENTION,
    ERROR_PATTERN,
    MODULE,
    SERVICE,
    known_type,
)

_VERSION = re.compile(r"^v?\d+(?:\.\d+)*[a-z]?$")
_MODIFIER_DEPS = frozenset({"compound", "amod", "nmod"})
COMPONENT_TYPES = frozenset({SERVICE, MODULE, CONFIG})
"""The types a component's head noun may give a noun chunk."""
TEAM_TYPES = frozenset({ERROR_PATTERN, CONVENTION})
"""The types a head noun gives a noun chunk in a text about software only ("the CORS
error", "the naming convention"): elsewhere an error or a rule is no thing of a team's."""

SOFTWARE_LEMMAS = words(
    "use migrate move switch replace depend run install upgrade downgrade deploy host pin "
    "configure build compile import restart crash cache store query call bump ship serve fail "
    "time log monitor instal uninstall update patch"
)
"""Verbs whose subject or object, in a sentence about software, is software."""

SOFTWARE_NOUNS = words(
    "version package library framework database cache queue cluster instance container image "
    "driver client sdk plugin dependency cli api server runtime"
)
"""Nouns that a software name modifies or is joined to ("the Redis cache")."""

TECHNICAL_LEMMAS = words(
    "api server database deploy repo config framework endpoint pipeline backend frontend ci "
    "timeout migrate upgrade cluster staging dependency env sdk cli app"
)
"""Words that mark a piece of text as one about software: the sentence rules of this
module run only there (a novel's "the Count ran" is no software)."""

Lemma = Callable[[Any, str], str]

_TAGGER_LABELS = frozenset({"GPE", "LOC", "FAC", "ORG", "PERSON", "PRODUCT", "NORP"})


def word_of(token: Any, lemma: Lemma) -> str:
    """The token's base form by its tag (verb or noun), else its lower-case text."""
    tag = token.tag_
    pos = "VERB" if tag.startswith("VB") else "NOUN" if tag.startswith("NN") else ""
    return (lemma(token, pos) if pos else "") or str(token.lower_)


def software_evidence(doc: Any, start: int, end: int, lemma: Lemma) -> bool:
    """Whether the sentence treats the name ``doc[start:end]`` as software: a one-word name
    by its case, a version after it or its head noun; any name by the verb it depends on
    ("built with React Native")."""
    token = doc[end - 1]  # the name's last word, which the parser makes its head
    if end - start == 1 and token.text.islower() and token.is_alpha:
        return True
    if end < len(doc) and _VERSION.match(doc[end].text) and any(c.isdigit() for c in doc[end].text):
        return True
    if (
        end - start == 1
        and token.head is not token
        and word_of(token.head, lemma) in SOFTWARE_NOUNS
    ):
        return True
    if token.dep_.startswith("nsubj") and token.ent_type_ == "PERSON":
        return False  # "Priya runs the rota": a person who acts
    node, hops = token, 0
    while node.head is not node and hops < 3:
        node, hops = node.head, hops + 1
        if node.tag_.startswith(("VB", "MD")):
            return word_of(node, lemma) in SOFTWARE_LEMMAS
    return False


def component_name(root: Any, lemma: Lemma, *, bare: bool = False) -> tuple[int, int, str] | None:
    """(first token, end token, type) of the noun phrase headed by ``root`` when it names
    one component, or ``None``.

    The head noun must be a singular component noun (``known_type`` gives ``Service``,
    ``Module`` or ``Config``; in a text about software also ``ErrorPattern`` or
    ``Convention``: "the CORS error", "the naming convention") with nouns before it
    ("billing service", "request timeout", "API server"), or, when ``bare`` (in a text
    about software), stand after "the" on its own ("the worker"); an adjective alone ("the
    great gateway") names no component; a phrase with a possessive, a number or an
    indefinite article is no particular thing ("a new service", "two workers", "our
    cache")."""
    if root.tag_ not in ("NN", "NNP") or not root.is_lower or root.dep_ in ("compound", "amod"):
        return None
    kind = known_type(word_of(root, lemma))
    if kind not in COMPONENT_TYPES and not (bare and kind in TEAM_TYPES):
        return None
    left = [t for t in root.lefts if t.i < root.i]
    start = root.i
    for token in reversed(left):
        if token.i != start - 1 or token.dep_ not in _MODIFIER_DEPS:
            break
        start = token.i
    determiner = next((t for t in left if t.dep_ in ("det", "poss", "nummod")), None)
    if determiner is not None and determiner.lower_ not in ("the", "this", "that"):
        return None
    nouns = [t for t in root.doc[start : root.i] if t.tag_.startswith(("NN", "VBG"))]
    if not nouns and not (bare and determiner is not None and determiner.lower_ == "the"):
        return None
    while start < root.i and not root.doc[start].tag_.startswith(("NN", "VBG", "JJ")):
        start += 1
    return start, root.i + 1, kind


def component_kind(surface: str, head: str) -> str:
    """The component type the last word of a tagger's name gives it ("API server":
    ``Service``), or ""; ``head`` is that word's base form."""
    words = surface.split()
    if len(words) < 2 or not words[-1].islower():
        return ""
    kind = known_type(head) or ""
    return kind if kind in COMPONENT_TYPES else ""


def library_label(label: str) -> bool:
    """Whether the tagger's ``label`` may be corrected to ``Library`` by the sentence."""
    return label in _TAGGER_LABELS


def technical(tokens: Any, lemma: Lemma) -> bool:
    """Whether a parsed piece or sentence is about software: a code-shaped word, a word of
    :data:`TECHNICAL_LEMMAS` or a named component ("the billing service")."""
    for token in tokens:
        if word_of(token, lemma) in TECHNICAL_LEMMAS or code_kind(token.text):
            return True
        if component_name(token, lemma) is not None:
            return True
    return False


def code_words(text: str) -> list[tuple[int, int, str]]:
    """(start, end, type) of every code-shaped word of ``text`` (:func:`code_kind`),
    without surrounding backticks, quotes or sentence punctuation."""
    out = []
    for found in re.finditer(r"\S+", text):
        word, start = found.group(0), found.start()
        lead = len(word) - len(word.lstrip("`'\"(["))
        word = word[lead:].rstrip("`'\",;:!?)]")
        if word.endswith("(") or (word.endswith(")") and not word.endswith("()")):
            word = word.rstrip("()")
        if word.endswith(".") and not word.endswith("/."):
            word = word.rstrip(".")
        kind = code_kind(word)
        if kind:
            out.append((start + lead, start + lead + len(word), kind))
    return out


def versioned(doc: Any, start: int, end: int) -> bool:
    """Whether a two-word tagger name is a name and a version ("Valkey 8", "Node 20")."""
    if end - start != 2:
        return False
    last = doc[end - 1].text
    return bool(_VERSION.match(last)) and any(c.isdigit() for c in last)


def conjuncts(token: Any) -> list[Any]:
    """The tokens joined to ``token`` by "and"/"or"/commas (spaCy's ``conj`` chain)."""
    seen, todo = {token.i}, [token]
    out = []
    while todo:
        node = todo.pop()
        near = [c for c in node.children if c.dep_ == "conj"]
        if node.dep_ == "conj":
            near.append(node.head)
        for other in near:
            if other.i not in seen:
                seen.add(other.i)
                out.append(other)
                todo.append(other)
    return out


def unknown_software(token: Any, lemma: Lemma) -> bool:
    """Whether a lower-case word is a software name: in backticks, or tagged a proper noun
    though written in lower case ("npm", "kubectl"), not a word the lemmatizer knows, and
    the subject or object of a software verb."""
    if not (token.is_lower and token.is_alpha and len(token) >= 2):
        return False
    if _backticked(token):
        return True
    if token.tag_ not in ("NNP", "NNPS") or lemma(token, "NOUN") or lemma(token, "VERB"):
        return False
    return software_evidence(token.doc, token.i, token.i + 1, lemma)


def _backticked(token: Any) -> bool:
    doc = token.doc
    before = doc[token.i - 1].text if token.i > 0 else ""
    after = doc[token.i + 1].text if token.i + 1 < len(doc) else ""
    return before.endswith("`") and after.startswith("`")
