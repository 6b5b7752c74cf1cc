"""Questions asking which people did something: the people of a set a passage announces by
its number, named in the rest of its section in sentences that repeat no word of the
question, read from a real store."""

from __future__ import annotations

from pathlib import Path

from retrieve_corpus import EntitySpec, build_bundle

from loregraph.answer.extractive import extractive_answer
from loregraph.answer.rollcall import NAMED_LEAD
from loregraph.embed.hashing import HashingEmbedder
from loregraph.retrieve.formats import format_context
from loregraph.retrieve.pipeline import Retriever
from loregraph.retrieve.result import RetrievalResult
from loregraph.retrieve.rollcall import announced_count, same_root
from loregraph.retrieve.terms import asks_for_people
from loregraph.settings import PRESETS
from loregraph.store.sqlite import SqliteStore
from loregraph.text.words import stem

HEADING = "Letter, Nora Vell to Tess Amber"
ANNOUNCED = "Three visitors in one day!"
LETTER = (
    f"{HEADING}\n\n"
    "Dear Tess, the rain never stopped at Fenwick. "
    f"{ANNOUNCED} "
    "Tess, you will laugh when you read this. "
    "I will tell you of each in turn, Tess, so be patient. "
    "Number one was Piet Lanner, the ferryman with the red beard. "
    "Piet Lanner talked of the river and its eels for an hour. "
    "The kettle boiled twice while he talked. "
    "At noon Hob Carrow knocked with a basket of apples. "
    "Hob Carrow is shy, and he turned his cap round and round. "
    "Hob Carrow left the apples on the step. "
    "The clock in the hall struck four. "
    "Last of all Oda Finch walked up from the mill. "
    "Oda Finch sang the old harvest song at the gate. "
    "I thought once of Jory Quist, and then of nothing. "
    "Write soon, Tess. "
    "Your loving Nora.\n\n"
)
DIARY = (
    "Diary of Jory Quist\n\n"
    "Jory Quist rose early and fed the hens. "
    "Jory Quist mended the fence by the lane. "
    "The hens of Jory Quist laid well that week. "
    "Jory Quist went to bed at nine. "
)
TEXT = LETTER + DIARY
SECTIONS: list[list[object]] = [[0, 7, HEADING], [len(LETTER), 7, "Diary of Jory Quist"]]

SPECS = [
    EntitySpec("Nora Vell", "Person", "A young woman of Fenwick", ["Nora"]),
    EntitySpec("Tess Amber", "Person", "Nora's friend", ["Tess"]),
    EntitySpec("Piet Lanner", "Person", "A ferryman"),
    EntitySpec("Hob Carrow", "Person", "A shy farmer"),
    EntitySpec("Oda Finch", "Person", "The miller's daughter"),
    EntitySpec("Jory Quist", "Person", "A farmer"),
    EntitySpec("Fenwick", "Location", "A village"),
]

QUESTION = "Which visitors called on Nora Vell?"


def test_a_question_asks_for_people_when_which_governs_a_plural_noun_of_people() -> None:
    assert asks_for_people("Which men proposed to Lucy?")
    assert asks_for_people("Which two friends sailed with the captain?")
    assert asks_for_people("To which visitors did she write?")
    assert not asks_for_people("Which tool takes a base backup?")
    assert not asks_for_people("Which of the hunters died?")  # one person
    assert not asks_for_people("Who proposed to Lucy?")  # no number to look for
    assert not asks_for_people("Which men's club did he join?")  # a club


def test_a_sentence_announces_a_number_of_what_the_question_asks_about() -> None:
    roots = [stem("proposed")]
    assert announced_count("THREE proposals in one day!", roots) == 3
    assert announced_count("She had 4 proposals.", roots) == 4
    assert announced_count("I had one proposal in one day.", roots) == 0  # one is no set
    assert announced_count("Three letters came; one proposed.", roots) == 0  # too far
    assert announced_count("Three young visitors", [stem("visitors")]) == 3
    assert same_root(stem("proposals"), stem("proposed"))
    assert same_root(stem("marriages"), stem("married"))
    assert not same_root(stem("men"), stem("mentioned"))
    assert not same_root(stem("car"), stem("carriage"))
    assert not same_root(stem("sentries"), stem("sent"))  # a longer word, not an ending
    assert not same_root(stem("foundation"), stem("found"))
    assert announced_count("I saw three sentries at the gate.", [stem("sent")]) == 0


async def _retrieve(
    path: Path,
    text: str,
    question: str = QUESTION,
    sections: list[list[object]] | None = SECTIONS,
    specs: list[EntitySpec] = SPECS,
) -> RetrievalResult:
    embedder = HashingEmbedder(dim=256)
    bundle = build_bundle(
        "default", "Fenwick letters", "fenwick.txt", text, embedder, entity_specs=specs
    )
    if sections is not None:
        bundle.document.metadata["sections"] = sections
    async with SqliteStore(path) as store:
        await store.write_document(bundle)
        return await Retriever(store, embedder, PRESETS["hybrid"]).retrieve(question, "default")


async def test_the_people_an_announced_set_holds_are_those_the_rest_of_its_section_names(
    tmp_path: Path,
) -> None:
    result = await _retrieve(tmp_path / "kg.db", TEXT)
    call = result.roll_call
    assert call is not None and call.count == 3
    assert TEXT[call.start : call.end] == ANNOUNCED
    # the most named first; the letter's writer and addressee are no visitors, the man
    # thought of once is past the number announced, and the diary is another section
    assert [m.entity.name for m in call.members] == ["Hob Carrow", "Piet Lanner", "Oda Finch"]
    for member in call.members:
        quote = TEXT[member.start : member.end]
        assert member.entity.name in quote
        assert member.passage.text[member.start - member.passage.start :].startswith(quote)
    hob = call.members[0]
    assert TEXT[hob.start : hob.end] == "At noon Hob Carrow knocked with a basket of apples."


async def test_the_offline_answer_names_the_people_each_with_its_evidence(tmp_path: Path) -> None:
    answer = extractive_answer(await _retrieve(tmp_path / "kg.db", TEXT))
    quotes = [c.quote for c in answer.citations]
    assert quotes[0] == ANNOUNCED  # the quotes in the letter's order
    assert quotes[1] == "Piet Lanner talked of the river and its eels for an hour."  # his subject
    lead = next(line for line in answer.text.splitlines() if line.startswith(NAMED_LEAD))
    assert lead == f"{NAMED_LEAD} Hob Carrow [3]; Piet Lanner [2]; Oda Finch [4]."
    assert all(TEXT[c.start : c.end] == c.quote for c in answer.citations)
    said = " ".join([lead, *quotes])
    assert "Jory Quist" not in said and "Tess" not in said


async def test_no_roll_call_is_made_without_a_number_announced(tmp_path: Path) -> None:
    text = TEXT.replace(ANNOUNCED, "Visitors all day long!")
    result = await _retrieve(tmp_path / "kg.db", text)
    assert result.roll_call is None and "roll_call" in result.debug
    other = await _retrieve(tmp_path / "other.db", TEXT, "What did Hob Carrow bring?")
    assert other.roll_call is None and "roll_call" not in other.debug


async def test_a_context_shows_the_announcing_sentence_then_each_member_s(tmp_path: Path) -> None:
    result = await _retrieve(tmp_path / "kg.db", TEXT)
    called = [p for p in result.passages if "roll call" in p.found_by]
    assert len(called) == 1  # one passage: the announcing chunk's, in its place
    assert called[0].text == " … ".join(
        [
            ANNOUNCED,
            "Piet Lanner talked of the river and its eels for an hour.",
            "At noon Hob Carrow knocked with a basket of apples.",
            "Oda Finch sang the old harvest song at the gate.",
        ]
    )
    assert TEXT[called[0].start :].startswith(ANNOUNCED)
    assert TEXT[: called[0].end].endswith("at the gate.")
    assert len({p.chunk_id for p in result.passages}) == len(result.passages)
    assert len(result.passages) <= PRESETS["hybrid"].max_passages
    whole = [p for p in result.reserve if p.chunk_id == called[0].chunk_id]
    assert len(whole) == 1 and "Dear Tess" in whole[0].text  # the chunk itself is kept
    context = format_context(result, "markdown", budget=4000)
    assert called[0].text in context


async def test_in_a_document_without_headings_the_set_ends_with_its_paragraph(
    tmp_path: Path,
) -> None:
    crowd = "".join(f"Jory Quist saw Mabel Stroud at the fair on day {d}. " for d in range(30))
    text = (
        f"{ANNOUNCED} Piet Lanner called first. Hob Carrow called at noon. "
        f"Oda Finch called last.\n\n{crowd}"
    )
    specs = [*SPECS, EntitySpec("Mabel Stroud", "Person", "A farmer's wife")]
    result = await _retrieve(tmp_path / "kg.db", text, sections=None, specs=specs)
    call = result.roll_call
    assert call is not None  # the set, not the people named most in the rest of the text
    assert [m.entity.name for m in call.members] == ["Piet Lanner", "Hob Carrow", "Oda Finch"]


async def test_an_announcing_sentence_naming_too_few_people_gives_way_to_the_next(
    tmp_path: Path,
) -> None:
    early = "Two visitors knocked, and Piet Lanner was one of them."
    text = TEXT.replace("Dear Tess, the rain never stopped at Fenwick.", early)
    sections = [[0, 7, HEADING], [text.index(ANNOUNCED), 7, HEADING], SECTIONS[1]]
    result = await _retrieve(tmp_path / "kg.db", text, sections=sections)
    call = result.roll_call
    assert call is not None and call.text == ANNOUNCED
    assert [m.entity.name for m in call.members] == ["Hob Carrow", "Piet Lanner", "Oda Finch"]


async def test_the_heading_left_out_is_that_of_the_announcing_sentence_s_section(
    tmp_path: Path,
) -> None:
    diary = "Diary of Jory Quist\n\nJory Quist fed the hens. "
    letter = LETTER.replace("Dear Tess, the rain never stopped at Fenwick. ", "")
    text = diary + letter  # the chunk holding the announcement starts in the diary
    sections = [[0, 7, "Diary of Jory Quist"], [len(diary), 7, HEADING]]
    result = await _retrieve(tmp_path / "kg.db", text, sections=sections)
    call = result.roll_call
    assert call is not None and call.passage.start < len(diary) <= call.start
    assert "Tess Amber" not in [m.entity.name for m in call.members]  # the letter's addressee
