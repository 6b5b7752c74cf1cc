"""The offline extractor's rules for a team's software (``ingest/extract/components.py``):
each rule with a case it must take and one it must leave alone."""

from __future__ import annotations

import asyncio

import pytest

from loregraph.ingest.chunk.chunker import chunk_text
from loregraph.ingest.extract.components import code_words
from loregraph.ingest.extract.offline import OfflineExtractor
from loregraph.ingest.types import SourceDocument
from loregraph.settings import ChunkSettings
from loregraph.text.code_shapes import code_kind
from loregraph.text.entity_types import normalize_type


def _types(text: str, title: str = "") -> dict[str, str]:
    doc = SourceDocument(title=title, text=text, source="t")
    chunks = list(chunk_text(text, ChunkSettings()))
    result = asyncio.run(OfflineExtractor().extract(doc, chunks))
    return {c.name: normalize_type(c.type) for c in result.entities}


@pytest.mark.parametrize(
    ("word", "kind"),
    [
        ("src/tally/config.py", "File"),
        ("docker-compose.yml", "File"),
        (".env", "File"),
        ("lib/common/", "Module"),
        ("DATABASE_URL", "Config"),
        ("ui.dark_mode", "Config"),
        ("handle_webhook()", "Function"),
        ("useSession", "Function"),
        ("Hono", ""),
        ("and/or", ""),
        ("Node.js", ""),
        ("U.S.", ""),
        ("eBook", ""),
        ("www.gutenberg.org", ""),
        ("1.C", ""),
        ("NASA", ""),
        ("Cart.total", "Function"),
        ("Vue.js", ""),
        ("Fly.io", ""),
    ],
)
def test_code_kind_by_shape(word: str, kind: str) -> None:
    assert code_kind(word) == kind


def test_code_words_lose_backticks_and_punctuation() -> None:
    text = "Set `MAX_RETRIES` in config/app.toml, then call run_all()."
    found = [(text[s:e], k) for s, e, k in code_words(text)]
    assert found == [
        ("MAX_RETRIES", "Config"),
        ("config/app.toml", "File"),
        ("run_all()", "Function"),
    ]


def test_software_in_a_sentence_about_software_is_a_library() -> None:
    types = _types("We migrated the web server from Express to Hono.")
    assert types["Express"] == "Library" and types["Hono"] == "Library"
    assert types["web server"] == "Service"


def test_a_name_of_several_words_is_software_by_the_verb_it_depends_on() -> None:
    types = _types("The Orbit mobile app is built with React Native.")
    assert types.get("React Native") == "Library"
    people = _types("Marco Rossi runs the deploy pipeline for the mobile app.")
    assert people.get("Marco Rossi") == "Person"


def test_a_version_after_a_name_is_cut_off_and_makes_it_software() -> None:
    types = _types("The session cache now runs on Valkey 8 in the staging cluster.")
    assert types.get("Valkey") == "Library"
    assert "Valkey 8" not in types


def test_names_in_a_sentence_not_about_software_keep_the_tagger_type() -> None:
    types = _types("Lucy Westenra ran from Whitby to London with Arthur Holmwood.")
    assert types.get("Lucy Westenra") == "Person"
    assert "Whitby" in types and "London" in types
    assert not {t for t in types.values() if t in ("Library", "Service", "Config")}


def test_a_person_who_acts_is_not_software() -> None:
    types = _types("Marco runs the deploy pipeline and the staging cluster.")
    assert types.get("Marco") == "Person"
    assert types.get("deploy pipeline") == "Service"


def test_named_components_become_entities() -> None:
    types = _types("Marta Silva owns the billing service. The request timeout is 30 s.")
    assert types.get("billing service") == "Service"
    assert types.get("request timeout") == "Config"


def test_errors_and_conventions_of_a_team_are_typed_in_a_text_about_software() -> None:
    types = _types(
        "The CORS error came back after the deploy. We follow the naming convention for "
        "the API server."
    )
    assert types.get("CORS error") == "ErrorPattern"
    assert types.get("naming convention") == "Convention"
    novel = _types("The house rule at the inn was strict, and the printer error was old news.")
    assert "house rule" not in novel and "printer error" not in novel  # not about software


def test_an_adjective_and_a_component_noun_name_no_component() -> None:
    types = _types("They passed through the great gateway of the old castle at dusk.")
    assert "great gateway" not in types and "gateway" not in types


def test_a_title_that_is_no_name_is_no_entity_but_a_named_title_is() -> None:
    assert "Public" not in _types("Olga Petrova reviews the public API.", title="public")
    assert "Todo" not in _types("Call the dentist about the crown.", title="todo")
    assert "Dracula" in _types("Count Dracula lived in a castle.", title="Dracula")
    assert "Emma Lane" in _types("She wrote three novels.", title="Emma Lane")
