"""Claims read from memory sentences, and when a later claim ends an earlier one."""

from __future__ import annotations

import pytest

from loregraph.ingest.clauses.model import Claim
from loregraph.ingest.clauses.rules import changes, same_value
from loregraph.ingest.facts.claim_ends import ClaimReader, spacy_reader


@pytest.fixture(scope="module")
def read() -> ClaimReader:
    reader = spacy_reader("en_core_web_sm")
    assert reader is not None
    return reader


def one(read: ClaimReader, text: str) -> Claim:
    claims = read(text)
    assert len(claims) == 1, claims
    return claims[0]


def ends(read: ClaimReader, new: str, old: str) -> bool:
    return any(changes(n, o) for n in read(new) for o in read(old))


def test_a_setting_reads_as_its_owner_attribute_and_value(read: ClaimReader) -> None:
    claim = one(read, "The Gannet upload limit is 10 MB.")
    assert (claim.anchor, claim.attribute, claim.value) == ("Gannet", ("upload", "limit"), "10 MB")
    assert claim.copular and not claim.change
    heading = one(read, "Gannet upload limit: 25 MB.")
    assert (heading.anchor, heading.attribute, heading.value) == (
        "Gannet",
        ("upload", "limit"),
        "25 MB",
    )


def test_a_change_names_what_it_leaves(read: ClaimReader) -> None:
    claim = one(read, "Priya Shah moved from Berlin to Lisbon.")
    assert (claim.anchor, claim.old, claim.value, claim.change) == (
        "Priya Shah",
        "Berlin",
        "Lisbon",
        True,
    )
    assert one(read, "We replaced Redis with Valkey.").old == "Redis"
    assert one(read, "Kettleby's checkout shows prices in EUR instead of GBP.").old == "GBP"


def test_questions_conditions_and_plans_claim_nothing(read: ClaimReader) -> None:
    assert read("If the timeout were 60 s, the export would finish.") == []
    assert read("Could the team meet in the Atrium instead?") == []
    assert read("Dmitri would like to join the Platform team one day.") == []


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("Amara Okafor lives in Leeds.", "Amara Okafor moved to Bristol last month."),
        ("The Ferncastle linter is Flake8.", "Ferncastle swapped Flake8 for Ruff."),
        ("Copperline's pool size is 32.", "Copperline's pool size is 48."),
        ("Orchard uses Django 4.2.", "Orchard was upgraded to Django 5.1."),
        ("Greta Novak works at Lumora Health.", "Greta Novak left Lumora Health for Pallas Bank."),
        ("Quillmark uses Sentry for error tracking.", "Quillmark doesn't use Sentry any more."),
        ("Lars Eriksen moved to Oslo.", "Lars Eriksen moved again; he lives in Trondheim now."),
        ("Bramble's CI runs on Jenkins.", "Bramble's CI was migrated to GitHub Actions."),
        ("The Wrenfield API listens on port 8080.", "The Wrenfield API port is 9090."),
        ("The Kettleby team is based in Leeds.", "The Kettleby team moved to Manchester."),
        (
            "The Larkspur frontend is written in Vue.",
            "The Larkspur frontend was rewritten in React.",
        ),
        ("Dev Anand is a junior developer.", "Dev Anand was promoted to senior developer."),
        ("The Pinecrest API uses Express.", "As of this sprint, the Pinecrest API uses Fastify."),
        ("Pinecrest's queue is RabbitMQ.", "Pinecrest traded RabbitMQ for NATS."),
        ("The Quarry API timeout is 30 s.", "The Quarry API timeout is set to 45 s."),
        ("Quarry keeps logs for 14 days.", "Quarry keeps logs for 30 days."),
        ("The Quarry worker pool has 8 workers.", "The Quarry worker pool has 16 workers."),
        ("Quarry is on version 3.1.", "Quarry is on version 3.2."),
        ("The Quarry API timeout is 30 s.", "The Quarry API uses a 45 s timeout."),
        ("The Tern app's rating is 4.1.", "The Tern app's rating dropped to 3.8."),
        ("The Tern retention window is 90 days.", "Tern's retention window was cut to 30 days."),
        ("Yusuf Ali is a team lead.", "Yusuf Ali went from team lead to engineering manager."),
        ("Wren uses Jest for tests.", "Vitest has replaced Jest in Wren."),
        ("Zara's landlord is Mr. Patel.", "Zara has a new landlord, Ms. Gray."),
        ("Ana works at Helix Bio.", "Ana got a new job at Orbit Labs."),
        ("Theo Grant is dating Maya.", "Theo Grant and Maya broke up; he is seeing Iris now."),
        ("Theo Grant is learning Spanish.", "Theo Grant gave up Spanish and is learning Italian."),
        (
            "Elena Popescu's phone is an iPhone 12.",
            "Elena Popescu changed phones; she has a Pixel 8 now.",
        ),
        ("Yusuf Ali's team is Payments.", "Yusuf Ali changed teams and is on Growth now."),
        ("Kofi Mensah banks with Barclays.", "Kofi Mensah switched banks to Monzo."),
        ("Fernwood uses Celery for background jobs.", "Fernwood dropped Celery in favour of RQ."),
        (
            "The Fernwood service depends on Flask.",
            "The Fernwood service was ported from Flask to FastAPI.",
        ),
        ("Fernwood runs on Node 18.", "Fernwood was upgraded from Node 18 to Node 20."),
        (
            "Lucia Gomez goes to the gym at PureFit.",
            "Lucia Gomez cancelled PureFit and joined Iron Works Gym.",
        ),
    ],
)
def test_a_change_ends_the_fact_it_changes(read: ClaimReader, old: str, new: str) -> None:
    assert ends(read, new, old)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("The API server stores data in PostgreSQL.", "We added ClickHouse next to PostgreSQL."),
        ("Nikolai Petrov lives in Tallinn.", "Rustam Karimov moved to Riga."),
        ("The Gannet request timeout is 30 s.", "The Gannet connect timeout is 5 s."),
        ("Anika Patel speaks Gujarati.", "Anika Patel speaks Spanish."),
        ("The support line opens at 08:00.", "The support line opens at 8 am."),
        ("Bramble deploys to Heroku.", "The plan is to move Bramble to Fly.io."),
        ("Mina Harker was the wife of Jonathan Harker.", "Mina Harker moved to Exeter."),
        ("The Wrenfield API listens on port 8080.", "The Wrenfield API metrics port is 9100."),
        ("Fernwood uses Celery for background jobs.", "Fernwood uses Redis as the Celery broker."),
        ("Omar Haddad's car is a Honda Civic.", "Omar Haddad rented a Kia EV6 for the weekend."),
        ("The standup is at 9:30.", "The retro is at 16:00."),
        ("Quarry keeps logs for 14 days.", "Quarry keeps backups for 30 days."),
        ("Quarry's max upload size is 10 MB.", "Quarry's max image size is 5 MB."),
        ("The Quarry API timeout is 30 s.", "The Quarry API uses a 5 s connect timeout."),
        ("Yusuf Ali is a team lead.", "Yusuf Ali went to a conference in Lisbon."),
        ("Kofi Mensah's gym is FitZone.", "Kofi Mensah's sister goes to FitZone."),
        ("Ana has a cat called Miso.", "Ana has a new puppy."),
        ("Theo Grant supports Arsenal.", "Theo Grant watched Spurs play on Saturday."),
        ("Carla Diaz drives a Seat Ibiza.", "Carla Diaz switched banks to Monzo."),
        ("Sparrow's default theme is light.", "Sparrow's docs theme changed to dark."),
    ],
)
def test_additions_other_subjects_and_restatements_end_nothing(
    read: ClaimReader, old: str, new: str
) -> None:
    assert not ends(read, new, old)


def test_values_compare_by_their_numbers_or_words() -> None:
    assert same_value("08:00", "8 am")
    assert same_value("Kubernetes", "its Kubernetes cluster")
    assert not same_value("30 s", "45 s")


def test_a_memory_with_no_name_found_still_holds_its_fact() -> None:
    from loregraph.ingest.extract.offline import OfflineExtractor
    from loregraph.ingest.types import SourceDocument, TextChunk
    from loregraph.models import DocKind

    def relations(text: str) -> set[tuple[str, str, str]]:
        doc = SourceDocument(title="", text=text, source=text, kind=DocKind.MEMORY)
        chunk = TextChunk(seq=0, start=0, end=len(text), text=text)
        found = OfflineExtractor().extract_many([(doc, [chunk])])[0]
        return {(r.source, r.type, r.target) for r in found.relations}

    assert ("Gannet", "HAS_UPLOAD_LIMIT", "10 MB") in relations("The Gannet upload limit is 10 MB.")
    assert ("Orchard", "STORES_IN", "MySQL 8") in relations("Orchard stores its data in MySQL 8.")
    assert not relations("We meet on Saturday.")


def test_a_state_with_its_preposition_is_a_relation_not_an_attribute(read: ClaimReader) -> None:
    claim = one(read, "Priya Shah is married to Tom Walsh.")
    assert (claim.anchor, claim.verb, claim.value) == ("Priya Shah", "be married to", "Tom Walsh")
    assert not claim.copular


def test_a_team_named_by_its_project_is_an_anchor_and_we_is_not(read: ClaimReader) -> None:
    team = one(read, "The Kettleby team works in Leeds.")
    assert (team.anchor, team.attribute, team.value) == ("Kettleby", ("team",), "Leeds")
    we = one(read, "We moved the API server to Hono.")
    assert (we.anchor, we.value) == ("API", "Hono")


def test_a_verb_the_tagger_took_for_a_noun_still_reads(read: ClaimReader) -> None:
    # the small tagger reads "Tessellate" as a common noun and "caches" as a plural noun here
    caches = one(read, "Tessellate caches sessions in Valkey.")
    assert (caches.anchor, caches.verb, caches.value) == (
        "Tessellate",
        "cache sessions in",
        "Valkey",
    )
    talks = one(read, "The billing service talks to Stripe.")
    assert (talks.anchor, talks.verb, talks.value) == ("billing service", "talk to", "Stripe")


def test_a_possessive_pronoun_takes_the_previous_anchor(read: ClaimReader) -> None:
    moved, flat = read("Zara has moved; her new flat is in York.")
    assert moved.change and (flat.anchor, flat.value) == ("Zara", "York")
    assert flat.change  # the change of the first clause carries to the second


def test_a_named_object_of_a_common_noun_object_is_the_value(read: ClaimReader) -> None:
    claim = one(read, "Orbit rebuilt its mobile app in Flutter.")
    assert (claim.anchor, claim.value, claim.thing) == ("Orbit", "Flutter", "app")


def test_what_a_change_moves_to_is_its_value_and_what_it_moves_is_its_object(
    read: ClaimReader,
) -> None:
    claim = one(read, "Heron switched its Docker base image to python:3.12-slim.")
    assert (claim.anchor, claim.value, claim.thing) == ("Heron", "python:3.12-slim", "image")
