"""Entity resolution: in-document clustering, then linking against the real SQLite store."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence

import numpy as np
import numpy.typing as npt
import pytest

from loregraph.embed.hashing import HashingEmbedder
from loregraph.ingest.resolve.entities import Resolver, cluster_candidates, embedding_text
from loregraph.ingest.types import CandidateEntity, Occurrence
from loregraph.models import (
    Chunk,
    Document,
    DocumentBundle,
    Entity,
    EntityWrite,
    Mention,
    content_hash,
)
from loregraph.settings import ResolutionSettings
from loregraph.store.sqlite import SqliteStore


def cand(
    name: str, kind: str = "PERSON", mentions: int = 1, *surfaces: str, description: str = ""
) -> CandidateEntity:
    occurrences = [Occurrence(0, name, mentions)] + [Occurrence(0, s, 1) for s in surfaces]
    return CandidateEntity(
        name=name,
        type=kind,
        mentions=mentions + len(surfaces),
        occurrences=occurrences,
        description=description,
    )


def by_surface(clustered: list[CandidateEntity]) -> dict[str, str]:
    """Every surface form → the name of the candidate that now holds it."""
    return {o.surface: c.name for c in clustered for o in c.occurrences}


# --------------------------------------------------------------------------- clustering
def test_count_dracula_dracula_and_the_count_are_one_entity() -> None:
    clustered, records = cluster_candidates(
        [
            cand("Dracula", mentions=13),
            cand("Count Dracula", mentions=9),
            cand("the Count", mentions=40),
        ]
    )
    assert len(clustered) == 1
    dracula = clustered[0]
    assert dracula.name == "Dracula" and dracula.mentions == 62
    rules = {surface: rule for surface, _, rule in records}
    assert rules == {"Count Dracula": "honorific", "the Count": "title-reference"}


def test_seward_variants_are_one_entity() -> None:
    clustered, _ = cluster_candidates(
        [
            cand("Dr. Seward", mentions=10),
            cand("John Seward", mentions=3),
            cand("Seward", mentions=8),
        ]
    )
    assert [c.name for c in clustered] == ["John Seward"]
    assert clustered[0].mentions == 21


def test_two_harkers_stay_two_and_an_ambiguous_surname_stays_apart() -> None:
    clustered, _ = cluster_candidates(
        [
            cand("Jonathan Harker", mentions=10),
            cand("Mina Harker", mentions=8),
            cand("Harker", mentions=6),
        ]
    )
    assert sorted(c.name for c in clustered) == ["Harker", "Jonathan Harker", "Mina Harker"]


def test_a_dominant_full_name_takes_the_ambiguous_surname() -> None:
    clustered, records = cluster_candidates(
        [
            cand("Jonathan Harker", mentions=30),
            cand("Mina Harker", mentions=5),
            cand("Harker", mentions=6),
        ]
    )
    assert by_surface(clustered)["Harker"] == "Jonathan Harker"
    assert ("Harker", "Jonathan Harker", "part-of-name-dominant") in records


def test_gendered_honorifics_pick_the_right_person() -> None:
    clustered, _ = cluster_candidates(
        [
            cand("Jonathan Harker", "PERSON", 10, "Mr. Jonathan Harker"),
            cand("Mina Harker", mentions=8),
            cand("Mrs. Harker", mentions=5),
            cand("Mr. Harker", mentions=2),
        ]
    )
    owner = by_surface(clustered)
    assert owner["Mrs. Harker"] == "Mina Harker"
    assert owner["Mr. Harker"] == "Jonathan Harker"


def test_miss_and_mrs_of_one_surname_are_different_people() -> None:
    clustered, _ = cluster_candidates(
        [cand("Lucy Westenra", "PERSON", 9, "Miss Lucy"), cand("Mrs. Westenra", mentions=4)]
    )
    assert sorted(c.name for c in clustered) == ["Lucy Westenra", "Mrs. Westenra"]


def test_honorific_on_a_name_tagged_as_organisation_still_joins_the_person() -> None:
    clustered, _ = cluster_candidates(
        [cand("Mina", "PERSON", 10), cand("Madam Mina", "ORG", 12), cand("Mina", "ORG", 3)]
    )
    assert len(clustered) == 1
    assert clustered[0].type == "Person"  # an honorific says "person"
    assert clustered[0].mentions == 25


def test_canonical_name_prefers_the_fuller_name_when_it_is_used_enough() -> None:
    clustered, _ = cluster_candidates(
        [cand("Van Helsing", mentions=100), cand("Abraham Van Helsing", mentions=6)]
    )
    assert clustered[0].name == "Abraham Van Helsing"  # used at least 5% as often
    clustered, _ = cluster_candidates(
        [cand("Van Helsing", mentions=100), cand("Abraham Van Helsing", mentions=3)]
    )
    assert clustered[0].name == "Van Helsing"


def test_unresolved_and_ambiguous_title_references_are_dropped() -> None:
    clustered, _ = cluster_candidates([cand("the Professor", mentions=5), cand("Lucy")])
    assert [c.name for c in clustered] == ["Lucy"]
    clustered, _ = cluster_candidates(
        [
            cand("Dr. Seward", mentions=4),
            cand("Dr. Vincent", mentions=4),
            cand("the Doctor", mentions=3),
        ]
    )
    assert "the Doctor" not in by_surface(clustered)


def test_place_names_keep_their_saint_and_head_nouns_fix_types() -> None:
    clustered, _ = cluster_candidates(
        [
            cand("Saint Petersburg", "GPE", 3),
            cand("Petersburg", "GPE", 2),
            cand("Castle Dracula", "PERSON", 4),
            cand("Dracula", "PERSON", 10),
        ]
    )
    types = {c.name: c.type for c in clustered}
    assert types == {
        "Saint Petersburg": "Location",
        "Petersburg": "Location",
        "Castle Dracula": "Location",
        "Dracula": "Person",
    }


def test_types_are_voted_by_mentions_and_normalised() -> None:
    clustered, _ = cluster_candidates(
        [cand("Whitby", "ORG", 2), cand("Whitby", "GPE", 5), cand("Whitby", "PERSON", 1)]
    )
    assert [(c.name, c.type, c.mentions) for c in clustered] == [("Whitby", "Location", 8)]


def test_clustering_its_own_output_changes_nothing() -> None:
    items = [
        cand("Dracula", mentions=13),
        cand("Count Dracula", mentions=9),
        cand("the Count", mentions=40),
        cand("Jonathan Harker", "PERSON", 10, "Mr. Jonathan Harker"),
        cand("Mina Harker", mentions=8),
        cand("Mrs. Harker", mentions=5),
        cand("Harker", mentions=6),
        cand("Lucy Westenra", "PERSON", 9, "Miss Lucy"),
        cand("Mrs. Westenra", mentions=4),
    ]
    once, first = cluster_candidates(items)
    twice, second = cluster_candidates(once)
    assert [(c.name, c.mentions, c.type) for c in twice] == [
        (c.name, c.mentions, c.type) for c in once
    ]
    assert {(s, c) for s, c, _ in second} == {(s, c) for s, c, _ in first}
    assert ("the Count", "Dracula", "title-reference") in second
    assert ("Count Dracula", "Dracula", "honorific") in second


def test_merged_candidates_keep_occurrences_and_the_earliest_description() -> None:
    early = CandidateEntity(
        "Seward", "PERSON", "Seward came early.", mentions=1, occurrences=[Occurrence(0, "Seward")]
    )
    late = CandidateEntity(
        "John Seward",
        "PERSON",
        "John Seward came later.",
        mentions=2,
        occurrences=[Occurrence(3, "John Seward", 2)],
        salience=4.0,
    )
    (merged,), _ = cluster_candidates([late, early])
    assert merged.description == "Seward came early."
    assert merged.salience == 4.0
    assert {(o.chunk_seq, o.surface, o.count) for o in merged.occurrences} == {
        (0, "Seward", 1),
        (3, "John Seward", 2),
    }


# --------------------------------------------------------------------------- the store
class CountingEmbedder:
    """The hashing embedder, counting its calls."""

    def __init__(self) -> None:
        self.inner = HashingEmbedder(256)
        self.name, self.dim = self.inner.name, self.inner.dim
        self.calls: list[int] = []

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        self.calls.append(len(texts))
        return self.inner.embed(texts)


@pytest.fixture()
async def store() -> AsyncIterator[SqliteStore]:
    db = SqliteStore(":memory:")
    await db.open()
    yield db
    await db.close()


@pytest.fixture()
def embedder() -> CountingEmbedder:
    return CountingEmbedder()


async def write_entities(store: SqliteStore, scope: str, doc: str, entities: list[Entity]) -> None:
    """Store ``entities`` as one document's (each mentioned once in its only chunk)."""
    text = " ".join(e.name for e in entities)
    chunk = Chunk(f"{doc}-c0", doc, 0, 0, len(text), text)
    document = Document(id=doc, title=doc, content_hash=content_hash(text + scope), scope=scope)
    mentions = [
        Mention(e.id, chunk.id, surface) for e in entities for surface in [e.name, *e.aliases]
    ]
    await store.write_document(
        DocumentBundle(document, [chunk], [EntityWrite(e) for e in entities], mentions, [])
    )


async def resolve_and_store(
    resolver: Resolver, store: SqliteStore, scope: str, doc: str, cands: list[CandidateEntity]
) -> dict[str, Entity]:
    resolution = await resolver.resolve(scope, cands, doc)
    unique = {e.id: e for e in resolution.entities.values()}
    await write_entities(store, scope, doc, list(unique.values()))
    return resolution.entities


async def test_a_second_document_links_to_the_existing_entity(
    store: SqliteStore, embedder: CountingEmbedder
) -> None:
    resolver = Resolver(store, embedder, ResolutionSettings())
    first = await resolve_and_store(resolver, store, "s", "d1", [cand("Van Helsing")])
    second = await resolver.resolve("s", [cand("Van Helsing")], "d2")
    assert second.entities["Van Helsing"].id == first["Van Helsing"].id
    assert second.new_ids == set()
    assert second.merges == []  # the same name is not a merge


async def test_clustered_dracula_resolves_to_one_entity_in_both_documents(
    store: SqliteStore, embedder: CountingEmbedder
) -> None:
    resolver = Resolver(store, embedder, ResolutionSettings())
    clustered, _ = cluster_candidates(
        [
            cand("Count Dracula", mentions=3),
            cand("Dracula", mentions=5),
            cand("the Count", mentions=9),
        ]
    )
    first = await resolve_and_store(resolver, store, "s", "d1", clustered)
    assert len(first) == 1
    entity = first["Dracula"]
    assert set(entity.aliases) == {"Count Dracula", "the Count"}
    later = await resolver.resolve("s", [cand("Count Dracula")], "d2")
    assert later.entities["Count Dracula"].id == entity.id
    assert [m.rule for m in later.merges] == ["alias"]


async def test_different_scopes_never_merge(store: SqliteStore, embedder: CountingEmbedder) -> None:
    resolver = Resolver(store, embedder, ResolutionSettings(fuzzy_threshold=0.5))
    first = await resolve_and_store(resolver, store, "a", "d1", [cand("Van Helsing")])
    other = await resolver.resolve("b", [cand("Van Helsing")], "d2")
    assert other.entities["Van Helsing"].id != first["Van Helsing"].id
    assert other.new_ids == {other.entities["Van Helsing"].id}


async def test_two_harkers_never_merge_through_a_shared_surname(
    store: SqliteStore, embedder: CountingEmbedder
) -> None:
    resolver = Resolver(store, embedder, ResolutionSettings(fuzzy_threshold=0.3))
    await resolve_and_store(
        resolver, store, "s", "d1", [cand("Jonathan Harker", "PERSON", 3, "Harker")]
    )
    mina = await resolver.resolve("s", [cand("Mina Harker", "PERSON", 2, "Harker")], "d2")
    assert mina.new_ids == {mina.entities["Mina Harker"].id}


async def test_a_known_variant_links_by_alias(
    store: SqliteStore, embedder: CountingEmbedder
) -> None:
    resolver = Resolver(store, embedder, ResolutionSettings())
    first = await resolve_and_store(
        resolver, store, "s", "d1", [cand("John Seward", "PERSON", 3, "Dr. Seward", "Seward")]
    )
    later = await resolver.resolve("s", [cand("Dr. Seward")], "d2")
    assert later.entities["Dr. Seward"].id == first["John Seward"].id
    assert [(m.rule, m.surface) for m in later.merges] == [("alias", "Dr. Seward")]


async def test_one_word_names_do_not_link_by_alias(
    store: SqliteStore, embedder: CountingEmbedder
) -> None:
    resolver = Resolver(store, embedder, ResolutionSettings())
    await resolve_and_store(
        resolver, store, "s", "d1", [cand("Victoria Franziska", "PERSON", 2, "Victoria")]
    )
    queen = await resolver.resolve("s", [cand("Queen Victoria", "PERSON", 1, "Victoria")], "d2")
    assert queen.new_ids == {queen.entities["Queen Victoria"].id}


async def test_alias_links_need_the_same_type(
    store: SqliteStore, embedder: CountingEmbedder
) -> None:
    resolver = Resolver(store, embedder, ResolutionSettings())
    await resolve_and_store(
        resolver, store, "s", "d1", [cand("Carfax Estate Company", "ORG", 2, "Carfax Estate")]
    )
    place = await resolver.resolve("s", [cand("Carfax Estate", "LOC")], "d2")
    assert place.new_ids == {place.entities["Carfax Estate"].id}


async def test_qualified_titles_match_only_exactly(
    store: SqliteStore, embedder: CountingEmbedder
) -> None:
    resolver = Resolver(store, embedder, ResolutionSettings())
    await resolve_and_store(resolver, store, "s", "d1", [cand("Alexander Ramsay")])
    title = cand("Alexander Ramsay (Royal Navy officer)", "PERSON", 1, "Alexander Ramsay")
    title.is_title = True
    own = await resolve_and_store(resolver, store, "s", "d2", [title])
    assert own[title.name].id == Entity.make_id("s", title.name)  # a new entity
    actress = cand("Carol Hughes (actress)", "PERSON", 1, "Carol Hughes")
    actress.is_title = True
    stored = await resolve_and_store(resolver, store, "s", "d3", [actress])
    mention = await resolver.resolve("s", [cand("Carol Hughes")], "d4")
    assert mention.entities["Carol Hughes"].id == stored[actress.name].id


async def test_fuzzy_matching_respects_the_threshold(
    store: SqliteStore, embedder: CountingEmbedder
) -> None:
    loose = Resolver(store, None, ResolutionSettings(fuzzy_threshold=0.8))
    strict = Resolver(store, None, ResolutionSettings(fuzzy_threshold=0.95))
    first = await resolve_and_store(loose, store, "s", "d1", [cand("Arthur Holmwood")])
    typo = await loose.resolve("s", [cand("Arthur Holmwod")], "d2")
    assert typo.entities["Arthur Holmwod"].id == first["Arthur Holmwood"].id
    (merge,) = typo.merges
    assert (merge.rule, merge.surface, merge.document_id) == ("fuzzy", "Arthur Holmwod", "d2")
    assert 0.8 <= merge.score < 1.0
    assert (await strict.resolve("s", [cand("Arthur Holmwod")], "d2")).new_ids


async def test_confirm_hook_can_refuse_a_merge(
    store: SqliteStore, embedder: CountingEmbedder
) -> None:
    asked: list[tuple[str, str]] = []

    async def refuse(candidate: CandidateEntity, entity: Entity) -> bool:
        asked.append((candidate.name, entity.name))
        return False

    settings = ResolutionSettings(fuzzy_threshold=0.8)
    await resolve_and_store(
        Resolver(store, None, settings), store, "s", "d1", [cand("Arthur Holmwood")]
    )
    result = await Resolver(store, None, settings, confirm=refuse).resolve(
        "s", [cand("Arthur Holmwod")], "d2"
    )
    assert asked == [("Arthur Holmwod", "Arthur Holmwood")]
    assert result.new_ids == {result.entities["Arthur Holmwod"].id}


DESCRIPTION = "A region in the Carpathian mountains where the Count lives."


async def test_embedding_match_within_a_type_only(
    store: SqliteStore, embedder: CountingEmbedder
) -> None:
    resolver = Resolver(store, embedder, ResolutionSettings())
    first = await resolve_and_store(
        resolver, store, "s", "d1", [cand("Transylvania", "GPE", description=DESCRIPTION)]
    )
    assert first["Transylvania"].embedding is not None
    same_type = await resolver.resolve(
        "s", [cand("Transsylvania", "LOC", description=DESCRIPTION)], "d2"
    )
    assert same_type.entities["Transsylvania"].id == first["Transylvania"].id
    (merge,) = same_type.merges
    assert merge.rule == "embedding" and merge.score >= 0.9
    other_type = await resolver.resolve(
        "s", [cand("Transsylvania", "ORG", description=DESCRIPTION)], "d2"
    )
    assert other_type.new_ids
    other_name = await resolver.resolve(
        "s", [cand("Carpathia", "LOC", description=DESCRIPTION)], "d2"
    )
    assert other_name.new_ids  # similar description, different name


async def test_new_entities_are_embedded_in_one_call(
    store: SqliteStore, embedder: CountingEmbedder
) -> None:
    resolver = Resolver(store, embedder, ResolutionSettings())
    cands = [cand("Lucy", description="A friend."), cand("Whitby", "GPE"), cand("Varna", "GPE")]
    result = await resolver.resolve("s", cands, "d1")
    assert embedder.calls == [3]
    for c in cands:
        entity = result.entities[c.name]
        assert entity.id == Entity.make_id("s", c.name)
        assert entity.type in ("Person", "Location")
        expected = embedder.inner.embed([embedding_text(c)])[0]
        assert entity.embedding is not None
        assert float(np.dot(entity.embedding, expected)) == pytest.approx(1.0, abs=1e-5)
    assert result.new_ids == {e.id for e in result.entities.values()}


async def test_without_an_embedder_new_entities_have_no_vector(store: SqliteStore) -> None:
    result = await Resolver(store, None, ResolutionSettings()).resolve("s", [cand("Lucy")], "d1")
    assert result.entities["Lucy"].embedding is None


async def test_one_word_names_do_not_fuzzy_match_through_an_alias(store: SqliteStore) -> None:
    resolver = Resolver(store, None, ResolutionSettings())
    await resolve_and_store(
        resolver, store, "s", "d1", [cand("Larry Miller", "PERSON", 2, "Larry")]
    )
    larry = await resolver.resolve("s", [cand("Larry")], "d2")
    assert larry.new_ids == {larry.entities["Larry"].id}
