"""Entity type normalisation: any extractor's raw type to one of a few graph types.

An LLM's free-form type (or a spaCy label) maps to one of ``Person``,
``Organization``, ``Location``, ``Product``, ``Concept``, ``Event``, ``Role`` or ``Code``
(default ``Concept``), or to one of the types of a team's software world that agent
memories name: ``Library`` (third-party software: packages, frameworks, databases,
languages, tools, hosted services), ``Service`` (a component the team builds or runs: the
billing service, the API server), ``File`` (a file or path), ``Module`` (a package or
folder of the team's code), ``Function`` (a function or method), ``Class`` (a class,
interface, struct, trait or type), ``Config`` (a
setting, environment variable, flag or limit), ``Convention`` (a team rule) and
``ErrorPattern`` (a recurring error). ``Product`` is every other made thing with a name:
objects, vehicles and ships ("the schooner Emma"), works (books, newspapers, films,
songs); ``Code`` is any other identifier of a program or a query language (``maxBuffer``,
``SELECT``).

The table covers spaCy's NER labels and common LLM synonyms, and adds
one more type, ``Time``, for dates and times (the offline extractor only
emits them when asked to; see :class:`~loregraph.ingest.extract.offline.OfflineExtractor`).

Decisions: spaCy's ``NORP`` (nationalities, religious and political groups) maps to
``Concept``: "Hungarian" or "Catholic" is a group identity, not an organisation one can
belong to by membership record. Numbers (``CARDINAL``, ``MONEY``...) map to ``Concept``.
Matching ignores case, spaces, hyphens and underscores, and a trailing plural ``s``.
"""

from __future__ import annotations

import re

PERSON = "Person"
ORGANIZATION = "Organization"
LOCATION = "Location"
PRODUCT = "Product"
CONCEPT = "Concept"
EVENT = "Event"
ROLE = "Role"
TIME = "Time"
CODE = "Code"
LIBRARY = "Library"
SERVICE = "Service"
FILE = "File"
MODULE = "Module"
FUNCTION = "Function"
CLASS = "Class"
CONFIG = "Config"
CONVENTION = "Convention"
ERROR_PATTERN = "ErrorPattern"

TYPES: tuple[str, ...] = (
    PERSON,
    ORGANIZATION,
    LOCATION,
    PRODUCT,
    CONCEPT,
    EVENT,
    ROLE,
    TIME,
    CODE,
    LIBRARY,
    SERVICE,
    FILE,
    MODULE,
    FUNCTION,
    CLASS,
    CONFIG,
    CONVENTION,
    ERROR_PATTERN,
)
"""The normalised types, in the order used to break ties."""

VEHICLES = (
    "vehicle|ship|boat|train|schooner|steamer|steamship|vessel|yacht|brig|brigantine|barque|"
    "frigate|liner|ferry|tug|tugboat|galleon|sloop|ketch|clipper|warship|battleship|cruiser|"
    "submarine|aircraft|airplane|aeroplane|airship|locomotive|car|automobile|carriage|"
    "wagon|tram|bus|truck|rocket|spacecraft|spaceship"
)
"""The "|"-separated nouns of vehicles: kinds of ``Product``, and what a sentence stating
how someone travels names (:mod:`loregraph.retrieve.results.terms`)."""

_SYNONYMS: dict[str, str] = {
    # "|"-separated synonyms of each type
    PERSON: (
        "person|people|per|character|animal|creature|human|individual|man|woman|child|"
        "persona|user|author|writer|actor|artist|politician|scientist|player|athlete|"
        "deity|god|monster|vampire|being|agent|contact|family member|"
        "fictional character"
    ),
    LOCATION: (
        "location|loc|gpe|fac|facility|place|setting|city|town|village|country|nation|"
        "state|province|county|region|area|territory|continent|island|mountain|river|"
        "lake|sea|ocean|building|castle|house|street|road|address|landmark|site|geo|"
        "geography|geographic location|port|harbour|harbor|station|district|"
        "neighbourhood|neighborhood|venue|room|estate|kingdom"
    ),
    ORGANIZATION: (
        "organization|organisation|org|company|corporation|business|firm|institution|"
        "institute|agency|government|ministry|department|group|team|band|club|party|"
        "political party|university|college|school|church|army|military|navy|"
        "association|society|union|committee|council|publisher|label|record label|brand|"
        "startup|nonprofit|ngo|court|crew|dynasty|family"
    ),
    PRODUCT: (
        "product|artifact|artefact|object|work of art|work|workofart|book|novel|film|"
        "movie|album|song|single|painting|play|poem|opera|series|tv series|"
        "television series|show|game|video game|"
        "device|weapon|item|document|newspaper|"
        "magazine|journal|gazette|periodical|story|essay|article|symphony|sculpture|"
        f"{VEHICLES}|satellite"
    ),
    CODE: "code|identifier|variable|keyword|sql keyword|code element",
    LIBRARY: (
        "library|software|tool|framework|package|dependency|database|runtime|"
        "programming language|sdk|cli|command line tool|application|app|platform|"
        "hosted service|saas|third party software|technology"
    ),
    SERVICE: (
        "service|microservice|server|pipeline|worker|component|system|backend|frontend|"
        "api|endpoint|job|cron job|daemon|bot|gateway|proxy|queue|index|cache|dashboard|"
        "portal|site|website|monolith|cluster|limiter"
    ),
    FILE: "file|path|file path|filename|script|document file|config file",
    MODULE: "module|folder|directory|namespace|submodule|codebase",
    FUNCTION: "function|method|hook|handler|callback|procedure",
    CLASS: "class|component class|interface|struct|trait|enum|type|data class|record type",
    CONFIG: (
        "config|configuration|configuration parameter|setting|environment variable|"
        "env var|env|variable name|flag|feature flag|option|parameter|timeout|limit"
    ),
    CONVENTION: "convention|coding convention|rule|team rule|practice|style rule|guideline",
    ERROR_PATTERN: "error pattern|errorpattern|error|bug|failure|exception|crash|outage pattern",
    EVENT: (
        "event|battle|war|meeting|conference|election|festival|ceremony|incident|"
        "accident|disaster|competition|tournament|championship|match|race|revolution|"
        "treaty signing|journey|voyage|expedition|attack|murder|death|birth|wedding|"
        "funeral|trial|season|olympics|award ceremony|historical event"
    ),
    ROLE: (
        "role|title|occupation|position|job|job title|profession|office|rank|post|function role"
    ),
    CONCEPT: (
        "concept|idea|topic|theme|norp|law|language|nationality|religion|ideology|"
        "theory|method|technique|skill|disease|condition|substance|material|species|"
        "genre|award|prize|"
        "misc|miscellaneous|other|cardinal|ordinal|quantity|money|percent|num|number|"
        "belief|custom|tradition|legend|myth|phenomenon"
    ),
    TIME: "time|date|datetime|year|period|era|century|day",
}


def _squash(raw: str) -> str:
    return re.sub(r"[\s_\-]+", " ", raw.strip().casefold()).strip()


_TABLE: dict[str, str] = {}
for _type, _words in _SYNONYMS.items():
    for _word in _words.split("|"):
        _TABLE[_squash(_word)] = _type
        _TABLE[_squash(_word).replace(" ", "")] = _type
for _type in TYPES:
    _TABLE[_type.casefold()] = _type


def normalize_type(raw: str) -> str:
    """Map a raw entity type (spaCy label, LLM word, code-graph kind) to a graph type.

    Case, spaces, hyphens and underscores are ignored (``"WORK_OF_ART"`` == ``"work of
    art"``), as is a plural ``s`` (``"Cities"``). Unknown and empty types give ``Concept``.

    >>> normalize_type("GPE"), normalize_type("character"), normalize_type("Company")
    ('Location', 'Person', 'Organization')
    """
    return known_type(raw) or CONCEPT


def known_type(raw: str) -> str | None:
    """The graph type ``raw`` names (as :func:`normalize_type` reads it), or ``None`` when
    it names none (an unknown or empty type: a correction by hand must not guess).

    >>> known_type("organisation"), known_type("Banana")
    ('Organization', None)
    """
    key = _squash(raw)
    if not key:
        return None
    for candidate in (key, key.replace(" ", "")):
        found = _TABLE.get(candidate)
        if found is not None:
            return found
    for suffix, replacement in (("ies", "y"), ("es", ""), ("s", "")):
        if key.endswith(suffix) and len(key) > len(suffix) + 1:
            found = _TABLE.get(key[: -len(suffix)] + replacement)
            if found is not None:
                return found
    return None
