"""Rules about English names: honorifics and titles, name parts, cleaning of surface forms.

These are language rules, not knowledge of any book: a general list of English honorifics
and titles (with the gender they imply, when they imply one), the nouns that make a name a
place or an organisation (``Castle …``, ``… Street``), and string rules (possessives,
articles, punctuation). Entity resolution (:mod:`loregraph.ingest.resolve.entities`) builds on them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from rapidfuzz import fuzz

from loregraph.models import name_key
from loregraph.text.entity_types import EVENT, LOCATION, ORGANIZATION

# Gender classes implied by an honorific. "miss" and "mrs" are both female but exclude each
# other (an unmarried and a married woman of one surname are usually two people).
MALE, FEMALE, MISS, MRS = "m", "f", "miss", "mrs"

_TITLE_TABLE = {
    MALE: "mr|sir|lord|count|king|prince|baron|duke|earl|marquis|marquess|viscount|emperor|"
    "tsar|czar|kaiser|sultan|shah|pharaoh|father|monsieur|herr|signor|senor|abbot|friar|"
    "archduke|grand duke|mister",
    FEMALE: "ms|madam|madame|mme|lady|dame|countess|queen|princess|baroness|duchess|"
    "empress|tsarina|czarina|tsaritsa|frau|signora|senora|abbess|archduchess|marchioness|"
    "viscountess",
    MISS: "miss|mlle|mademoiselle|fraulein|signorina|senorita",
    MRS: "mrs|missus",
    "": "dr|doctor|prof|professor|captain|capt|colonel|col|general|gen|major|lieutenant|lt|"
    "sergeant|sgt|admiral|commander|cmdr|corporal|marshal|saint|st|rev|reverend|bishop|"
    "archbishop|cardinal|pope|rabbi|imam|sheikh|president|senator|governor|judge|justice|"
    "chancellor|minister|hon|honourable|honorable|mayor|detective|inspector|officer|"
    "constable|pastor|vicar|provost|ambassador|consul|maharaja|nawab|emir",
}

TITLES: dict[str, str] = {
    word: gender for gender, words in _TITLE_TABLE.items() for word in words.split("|")
}
"""Honorific or title (case-folded, no dot) → the gender class it implies ("" = none)."""

_TITLE_NOUNS = (
    "count|countess|professor|doctor|captain|king|queen|prince|princess|baron|baroness|"
    "duke|duchess|lord|lady|emperor|empress|colonel|general|major|admiral|commander|"
    "bishop|archbishop|cardinal|pope|president|governor|judge|senator|sultan|czar|tsar|"
    "czarina|tsarina|earl|marquis|abbot|abbess|inspector|detective|chancellor|mayor|"
    "sheriff|pharaoh|archduke|viscount|shah|kaiser|ambassador"
)
TITLE_NOUNS: frozenset[str] = frozenset(_TITLE_NOUNS.split("|"))
"""Titles that work as a noun on their own: "the Count", "the Professor" refer to a person."""

_SAINT_LIKE = frozenset({"saint", "st"})

# A first token that makes a name a place/organisation/event ("Castle X", "Lake X",
# "University of X"); and a last token that does ("X Street", "X Asylum"). Surnames that
# are also place nouns (Hall, Lane, Park, Bay, Church...) are deliberately left out.
_HEAD_FIRST = {
    LOCATION: "castle|mount|lake|fort|port|cape|river|isle|mt|loch|glen|gulf|bay of|"
    "kingdom|duchy|county|city|province|republic|principality|empire|state of|island of",
    ORGANIZATION: "university|college|bank|house of|order of|society of|church of|"
    "institute|academy|school of|department|ministry|council|league|federation",
    EVENT: "battle|siege|war|treaty|council of|congress of|festival",
}
_HEAD_LAST = {
    LOCATION: "street|road|avenue|square|cliff|cliffs|pass|sea|ocean|mountains|asylum|"
    "hotel|station|harbour|harbor|island|islands|valley|desert|river|bridge|cathedral|"
    "abbey|castle|palace|mountain|peninsula|strait|channel|canal|county|province|"
    "airport|stadium|museum|library|hospital|district|crescent|terrace|gardens",
    ORGANIZATION: "university|college|company|railway|institute|society|party|"
    "corporation|inc|ltd|plc|llc|academy|club|army|navy|council|ministry|committee|"
    "association|foundation|school|church|records|studios|press|bank|band|orchestra",
    EVENT: "war|battle|revolution|olympics|championship|festival|election|massacre|"
    "rebellion|uprising|crusade|conference|summit|games|cup",
}


def _split_table(table: dict[str, str]) -> dict[str, str]:
    return {word: kind for kind, words in table.items() for word in words.split("|")}


HEAD_FIRST: dict[str, str] = _split_table(_HEAD_FIRST)
HEAD_LAST: dict[str, str] = _split_table(_HEAD_LAST)

_ROMAN = re.compile(r"^(?=[ivxlcdm]+$)m{0,3}(cm|cd|d?c{0,3})(xc|xl|l?x{0,3})(ix|iv|v?i{0,3})$")
_POSSESSIVE = re.compile(r"(?:['’]s|(?<=s)['’])$")
_EDGE_PUNCT = "\"'“”‘’«»()[]{}<>,;:!?*_|/\\-–—=+#~`^"
_ABBREVIATIONS = frozenset({"jr", "sr", "st", "co", "inc", "ltd", "bros", "corp", "mt"})
_LEADING_ARTICLE = re.compile(r"^(?:the|a|an)\s+", re.IGNORECASE)


def _word_key(word: str) -> str:
    return name_key(word)


def clean_surface(text: str) -> str:
    """A surface form as an entity name: spaces collapsed, edge punctuation, a leading
    article and a trailing possessive removed.

    >>> clean_surface('the Count’s')
    'Count'
    >>> clean_surface('“Bistritz,”')
    'Bistritz'
    """
    name = " ".join(text.split())
    for _ in range(3):
        before = name
        name = name.strip(_EDGE_PUNCT + " ")
        name = _LEADING_ARTICLE.sub("", name) if " " in name else name
        name = _POSSESSIVE.sub("", name).rstrip()
        if name.endswith(".") and not _is_abbreviation(name):
            name = name[:-1]
        if name == before:
            break
    return name


def _is_abbreviation(name: str) -> bool:
    last = name.rsplit(" ", 1)[-1].rstrip(".").casefold()
    if "." in last:  # an initialism: "D.C.", "U.S."
        return True
    return last in _ABBREVIATIONS or last in TITLES or (len(last) == 1 and last.isalpha())


_PARTICLES = "van|von|der|den|de|du|da|di|del|della|dos|das|la|le|ten|ter|bin|ibn|al|el|y|e|zu"
NAME_PARTICLES: frozenset[str] = frozenset(_PARTICLES.split("|"))
"""Lower-case words that may stand inside a proper name ("Ludwig van Beethoven")."""


def is_valid_name(name: str) -> bool:
    """Whether a cleaned surface can name an entity.

    Rejected: fewer than two characters, no letter, a first word with no capital letter
    (a common noun: "chapter II", "mein Herr"; name particles such as "de" and words with
    a digit excepted), or a bare honorific ("Herr", "Sir"; a title noun such as "Count" is
    kept, as a title reference).
    """
    if len(name) < 2 or not any(c.isalpha() for c in name):
        return False
    words = name.split()
    first = words[0]
    lower = first == first.lower() and not any(c.isdigit() for c in first)
    if lower and first not in NAME_PARTICLES:
        return False
    keys = [_word_key(w) for w in words]
    if all(k in TITLES for k in keys) and not (len(keys) == 1 and keys[0] in TITLE_NOUNS):
        return False
    return len(name_key(name)) >= 2


def looks_like_person_name(name: str) -> bool:
    """Whether every word is capitalised or a name particle, with no list punctuation.

    Tells a person's name from a tagger's run-on span: not "Arthur Holmwood to Seward", not
    "Van Helsing, Art".
    """
    if any(c in name for c in ",;:()[]/&"):
        return False
    return all(w[:1].isupper() or w in NAME_PARTICLES for w in name.split())


def split_title(name: str) -> tuple[list[str], str]:
    """Leading honorifics/titles (case-folded, no dot) and the rest of the name.

    Only capitalised titles followed by a capitalised word are split off; a name that is
    nothing but titles is returned whole. ``"Dr. John Seward"`` → ``(["dr"], "John Seward")``.
    """
    words = name.split()
    titles: list[str] = []
    i = 0
    while i < len(words) - 1:
        word = words[i]
        key = _word_key(word)
        two = f"{key} {_word_key(words[i + 1])}" if i + 2 < len(words) else ""
        if two in TITLES and words[i + 2][:1].isupper():
            titles.append(two)
            i += 2
            continue
        if key in TITLES and word[:1].isupper() and words[i + 1][:1].isupper():
            titles.append(key)
            i += 1
            continue
        break
    return titles, " ".join(words[i:])


def title_reference(name: str) -> str | None:
    """The title if ``name`` is a title used alone ("the Count", "Professor"), else None."""
    words = _LEADING_ARTICLE.sub("", " ".join(name.split())).split()
    if len(words) != 1 or not words[0][:1].isupper():
        return None
    key = _word_key(words[0])
    return key if key in TITLE_NOUNS else None


def gender_of(titles: Iterable[str]) -> set[str]:
    """The gender classes the titles imply (empty when none does)."""
    return {TITLES[t] for t in titles if TITLES.get(t)}


def genders_conflict(a: set[str], b: set[str]) -> bool:
    """Whether two sets of gender classes cannot belong to one person."""
    for x in a:
        for y in b:
            if x == y:
                continue
            if MALE in (x, y) or {x, y} == {MISS, MRS}:
                return True
    return False


def is_saint_like(titles: Iterable[str]) -> bool:
    """Whether the titles include "Saint"/"St." (which also starts many place names)."""
    return any(t in _SAINT_LIKE for t in titles)


def tokens(name: str) -> list[str]:
    """The name key split into words: ``"Van Helsing"`` → ``["van", "helsing"]``."""
    return name_key(name).split()


def is_name_part(short: list[str], long: list[str]) -> bool:
    """Whether ``short`` is a leading or trailing part of the longer name ``long``.

    ``["harker"]`` is part of ``["jonathan", "harker"]`` (surname), ``["mina"]`` too (first
    name), ``["van", "helsing"]`` of ``["abraham", "van", "helsing"]``.
    """
    n = len(short)
    if not short or n >= len(long):
        return False
    return long[:n] == short or long[-n:] == short


def may_name_one_person(a: str, b: str) -> bool:
    """Whether two different person names may still be two names of one person.

    True when one name (honorifics aside) is the leading or trailing part of the other and
    their honorifics imply no different genders: ``Harker`` / ``Jonathan Harker``, ``Mr.
    Morris`` / ``Quincey Morris``; not ``Mina Harker`` / ``Jonathan Harker``, not ``Mrs.
    Harker`` / ``Mr. Jonathan Harker``. A relation between two such names says nothing.
    """
    titles_a, core_a = split_title(a)
    titles_b, core_b = split_title(b)
    if genders_conflict(gender_of(titles_a), gender_of(titles_b)):
        return False
    words_a, words_b = tokens(core_a), tokens(core_b)
    return is_name_part(words_a, words_b) or is_name_part(words_b, words_a)


def head_type(name: str) -> str | None:
    """The type a name's head noun implies: ``"Castle Dracula"`` → Location.

    Looks at the first word (and first two words, for "Bay of …", "House of …") and, for
    names of two or more words, the last word. None when no head noun decides.
    """
    words = name_key(name).split()
    if len(words) < 2:
        return None
    for key in (" ".join(words[:2]), words[0]):
        if key in HEAD_FIRST:
            return HEAD_FIRST[key]
    return HEAD_LAST.get(words[-1])


_PAREN_QUALIFIER = re.compile(r"\s*\(([^()]*)\)\s*$")


def split_qualifier(title: str) -> tuple[str, str]:
    """A title's name and its disambiguating qualifier, as in encyclopedia titles.

    ``"Coney Island Baby (film)"`` → ``("Coney Island Baby", "film")``;
    ``"Lambert, Margrave of Tuscany"`` → ``("Lambert", "Margrave of Tuscany")``.
    """
    title = " ".join(title.split())
    match = _PAREN_QUALIFIER.search(title)
    if match and match.start() > 0:
        return title[: match.start()].strip(), match.group(1).strip()
    head, comma, rest = title.partition(", ")
    if comma and head and rest:
        return head.strip(), rest.strip()
    return title, ""


EMBEDDING_NAME_SIMILARITY = 0.6


def name_similarity(a: str, b: str) -> float:
    """How alike two names are as strings, 0..1 (token-set ratio of their keys).

    An acronym of the other name's words ("NYC" / "New York City") scores 1.
    """
    ka, kb = name_key(a), name_key(b)
    if not ka or not kb:
        return 0.0
    for short, long in ((ka, kb), (kb, ka)):
        words = long.split()
        if " " not in short and len(words) > 1 and short == "".join(w[0] for w in words):
            return 1.0
    return float(fuzz.token_set_ratio(ka, kb)) / 100.0


def _numbers(words: list[str]) -> set[str]:
    return {w for w in words if w.isdigit() or _ROMAN.match(w)}


def names_compatible(a: str, b: str, *, person: bool = True) -> bool:
    """Whether two names may denote one entity (a guard for fuzzy and embedding matches).

    Never compatible: different numbers or regnal numerals (``Louis XIV`` / ``Louis XV``,
    ``World War I`` / ``World War II``); for persons, two names of two or more words with a
    different first name (``Jonathan Harker`` / ``Mina Harker``) unless one is an initial
    of the other (``J. Harker``).
    """
    _, core_a = split_title(a)
    _, core_b = split_title(b)
    wa, wb = tokens(core_a), tokens(core_b)
    if not wa or not wb:
        return False
    if _numbers(wa) != _numbers(wb):
        return False
    if not person or len(wa) < 2 or len(wb) < 2 or wa[0] == wb[0]:
        return True
    if is_name_part(wa, wb) or is_name_part(wb, wa):
        return True
    first_a, first_b = wa[0], wb[0]
    return (len(first_a) == 1 and first_b.startswith(first_a)) or (
        len(first_b) == 1 and first_a.startswith(first_b)
    )
