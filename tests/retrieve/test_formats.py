"""Context formats and the token budget."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest
from retrieve_corpus import sample_result

from loregraph.errors import ConfigError
from loregraph.retrieve.context.assemble import assemble
from loregraph.retrieve.context.formats import mermaid_edge_label, mermaid_text
from loregraph.retrieve.question.relevance import question_terms
from loregraph.retrieve.results.terms import Focus
from loregraph.text.tokens import count_tokens


def test_markdown_follows_seed_000_layout() -> None:
    text = assemble(sample_result(intent="relationship"), "markdown", budget=4000).text
    assert text.startswith("## Knowledge Graph Context\n\n### Relevant Entities\n")
    assert "\n**Locations:**\n- Port Calder: Home port of the Meridian\n" in text
    assert "\n**Persons:**\n" in text
    assert "\n### Relationships\n- Meridian DEPARTS_FROM Port Calder\n" in text or (
        "- Meridian DEPARTS_FROM Port Calder\n" in text.split("### Relationships\n", 1)[1]
    )
    # loregraph additions come after the seed's two sections
    assert text.index("### Relationships") < text.index("### Passages")
    # each passage is headed by its source; no separate list repeats them
    assert "\n[1] The Voyage of the Meridian (characters " in text
    assert "### Sources" not in text


def test_xml_has_definitions_facts_and_sources() -> None:
    text = assemble(sample_result(intent="relationship"), "xml", budget=4000).text
    assert text.startswith("<definitions>Meridian: A merchant ship out of Port Calder, ")
    facts = text.split("<facts>", 1)[1].split("</facts>", 1)[0]
    assert "Elena Varga COMMANDS Meridian, Captain Elena Varga commanded the Meridian." in facts
    assert '<passages>\n<passage id="1" document="The Voyage of the Meridian"' in text
    assert "<sources>" in text and "source=" not in text  # a file is named by its title


def test_xml_escapes_markup_in_text() -> None:
    result = sample_result()
    result.passages[0].text = "a < b & c > d"
    text = assemble(result, "xml", budget=4000).text
    assert "a &lt; b &amp; c &gt; d" in text


def test_json_holds_everything_structured() -> None:
    data = json.loads(assemble(sample_result(), "json", budget=4000).text)
    assert {
        "question",
        "analysis",
        "start_entities",
        "entities",
        "relations",
        "passages",
        "documents",
    } <= set(data)
    assert data["analysis"]["matched"]["Meridian"].startswith("ent_")
    assert data["passages"][0]["index"] == 1
    assert data["passages"][0]["document_title"] == "The Voyage of the Meridian"
    assert data["debug"]["total"]["count"] == len(data["passages"])


def test_mermaid_draws_relations_with_safe_ids() -> None:
    text = assemble(sample_result(), "mermaid", budget=4000).text
    lines = text.splitlines()
    assert lines[0] == "graph TD"
    assert '    n0["Meridian"]' in lines
    assert any("-->|COMMANDS|" in line for line in lines)
    assert any("-.->|CO_OCCURS_WITH|" in line for line in lines)


def test_mermaid_escapes_quotes_and_brackets() -> None:
    assert mermaid_text('The "Ship" [old] (1850) <x> | y # z') == (
        "The #34;Ship#34; #91;old#93; #40;1850#41; #60;x#62; #124; y #35; z"
    )
    assert mermaid_edge_label("WORKS|FOR]") == "WORKS FOR"
    result = sample_result()
    result.entities[0].entity.name = 'Bad "name"]'
    text = assemble(result, "mermaid", budget=4000).text
    assert '["Bad #34;name#34;#93;"]' in text


@pytest.mark.parametrize("fmt", ["markdown", "xml", "json", "mermaid"])
@pytest.mark.parametrize("budget", [0, 30, 120, 400, 1000, 4000])
def test_budget_is_never_exceeded(fmt: str, budget: int) -> None:
    text = assemble(sample_result(), fmt, budget=budget).text
    assert count_tokens(text) <= budget


def test_small_budget_truncates_the_last_passage_instead_of_overflowing() -> None:
    result = sample_result()
    for passage in result.passages:
        passage.text = " ".join([passage.text] * 12)
    full = assemble(result, "markdown", budget=100_000).text
    small = assemble(result, "markdown", budget=700).text
    assert count_tokens(small) <= 700 < count_tokens(full)
    passages = small.split("### Passages\n", 1)[1].split("\n### ", 1)[0]
    assert passages.rstrip().endswith("…")
    assert "[1] The Voyage of the Meridian (characters " in passages


def test_budget_keeps_best_items_first() -> None:
    text = assemble(sample_result(intent="relationship"), "markdown", budget=300).text
    # the best passage (chunk 1) and the top entity survive a tight budget
    best = next(p for p in sample_result().passages if p.seq == 1)
    assert f"(characters {best.start}–{best.end})" in text
    assert "- Meridian:" in text


def test_default_budget_comes_from_the_result() -> None:
    result = sample_result()
    result.token_budget = 150
    assert count_tokens(assemble(result).text) <= 150


def test_unknown_format_names_the_known_ones() -> None:
    with pytest.raises(ConfigError, match="markdown"):
        assemble(sample_result(), "yaml")


def test_temporal_relations_show_their_validity() -> None:
    from datetime import UTC, datetime

    result = sample_result(intent="relationship")
    rel = result.relations[0].relation
    rel.valid_at = datetime(2020, 1, 1, tzinfo=UTC)
    rel.invalid_at = datetime(2023, 5, 1, tzinfo=UTC)
    text = assemble(result, "markdown", budget=4000).text
    assert "- Elena Varga COMMANDS Meridian (from 2020-01-01 until 2023-05-01)\n" in text
    xml = assemble(result, "xml", budget=4000).text
    assert "Elena Varga COMMANDS Meridian (from 2020-01-01 until 2023-05-01), Captain" in xml


@pytest.mark.parametrize("fmt", ["markdown", "xml", "json"])
def test_a_context_names_a_file_by_its_title_never_its_path(fmt: str) -> None:
    result = sample_result()
    for passage in result.passages:
        passage.document_source = "/home/someone/private notes/voyage.txt"
    for document in result.documents:
        document.source = "/home/someone/private notes/voyage.txt"
    text = assemble(result, fmt, budget=4000).text
    assert "/home/someone" not in text and "voyage.txt" not in text
    assert "The Voyage of the Meridian" in text
    if fmt == "markdown":
        assert "[1] The Voyage of the Meridian (characters " in text
        assert " — " not in text.split("### Passages", 1)[1]


@pytest.mark.parametrize("fmt", ["markdown", "xml", "json"])
def test_a_context_keeps_a_url_source(fmt: str) -> None:
    result = sample_result()
    for passage in result.passages:
        passage.document_source = "https://example.org/voyage"
    text = assemble(result, fmt, budget=4000).text
    assert "https://example.org/voyage" in text
    if fmt == "json":
        assert json.loads(text)["passages"][0]["document_source"] == "https://example.org/voyage"


def test_a_fact_question_gets_passages_first_and_only_graph_lines_that_add() -> None:
    result = sample_result()  # "Where did the Meridian sail from Port Calder?": a fact
    text = assemble(result, "markdown", budget=4000).text
    assert text.startswith("## Knowledge Graph Context\n\n### Passages\n")
    assert text.index("### Passages") < text.index("### Relevant Entities")
    # the passages already say "the Meridian, a merchant ship out of Port Calder"
    assert "- Meridian: A merchant ship" not in text
    # a description no passage holds is worth its line
    assert "- Port Calder: Home port of the Meridian\n" in text


def add_relation(result: Any, source: str, target: str, **changes: Any) -> None:
    """Put a variant of the result's first relation first, between the named ends."""
    from loregraph.retrieve.results.result import RankedRelation

    relation = dataclasses.replace(result.relations[0].relation, **changes)
    result.relations.insert(0, RankedRelation(relation, source, target, 5.0))


def test_relations_between_names_of_one_thing_are_left_out() -> None:
    from loregraph.retrieve.results.result import RankedEntity

    result = sample_result(intent="relationship")
    varga = next(e.entity for e in result.entities if e.entity.name == "Elena Varga")
    assert varga.type == "Person"
    short = dataclasses.replace(varga, id="short", name="Varga")
    result.entities.append(RankedEntity(short, 0.5))
    castle = dataclasses.replace(varga, id="castle", name="Castle Varga", type="Location")
    result.entities.append(RankedEntity(castle, 0.4))
    add_relation(result, varga.name, "Varga", id="alias", source_id=varga.id, target_id="short")
    add_relation(result, varga.name, varga.name, id="self", source_id=varga.id, target_id=varga.id)
    add_relation(
        result,
        "Varga",
        "Castle Varga",
        id="owns",
        source_id="short",
        target_id="castle",
        type="OWNS",
        fact="Varga owned a castle.",
    )
    text = assemble(result, "markdown", budget=4000).text
    assert "Elena Varga COMMANDS Varga" not in text
    assert "Elena Varga COMMANDS Elena Varga" not in text
    assert "- Elena Varga COMMANDS Meridian" in text
    # a place named after a person is another thing
    assert "- Varga OWNS Castle Varga" in text


def test_a_weak_relation_is_shown_with_its_evidence() -> None:
    from loregraph.models import CO_OCCURS

    result = sample_result(intent="relationship")
    add_relation(
        result,
        "Elena Varga",
        "Dr. Tomas Reyes",
        id="seen",
        type=CO_OCCURS,
        fact="Varga and Reyes were seen together at the harbour of Osray.",
    )
    text = assemble(result, "markdown", budget=4000).text
    assert (
        "- Elena Varga CO_OCCURS_WITH Dr. Tomas Reyes — “Varga and Reyes were seen together "
        "at the harbour of Osray.”"
    ) in text
    # a confident typed relation stands on its verb
    assert "- Elena Varga COMMANDS Meridian\n" in text


def test_a_relation_typed_only_by_light_verbs_and_prepositions_shows_its_evidence() -> None:
    result = sample_result(intent="relationship")
    fact = "Now we come to what Varga must have done after her arrival, at Osray."
    add_relation(result, "Elena Varga", "Osray", id="did", type="DOES_AT", fact=fact)
    text = assemble(result, "markdown", budget=4000).text
    assert f"- Elena Varga DOES_AT Osray — “{fact}”" in text  # "does at" says nothing
    assert "- Elena Varga COMMANDS Meridian\n" in text


def test_the_best_passage_is_shown_whole_when_the_budget_affords_it() -> None:
    result = sample_result()
    first = result.passages[0]
    filler = " ".join(f"On day {n} the crew mended sails and sang." for n in range(14))
    text = f"{filler} The Meridian sailed from Port Calder at dawn. {filler}"
    result.passages[0] = dataclasses.replace(first, text=text, end=first.start + len(text))
    result.focus = Focus.of(question_terms(result.analysis), {}, result.analysis.question)
    assert text in assemble(result, "markdown", budget=4000).text
    small = assemble(result, "markdown", budget=600).text
    assert text not in small and "The Meridian sailed from Port Calder at dawn." in small


def test_a_relationship_question_naming_fewer_than_two_entities_keeps_room_for_passages() -> None:
    def passages_shown(question: str, common_word: str = "") -> int:
        result = sample_result(question, "relationship")
        if common_word:  # a lower-case word that happens to match an entity is no name
            result.analysis.matched[common_word] = result.entities[-1].entity.id
        text = assemble(result, "markdown", budget=300).text
        return text.split("### Passages\n", 1)[1].count("\n[")

    one = passages_shown("How does the Meridian differ from other ships?")
    two = passages_shown("How is Elena Varga related to the Meridian?")
    assert one > two
    assert passages_shown("How does the Meridian differ from the reefs?", "reefs") == one
