"""Streamed answers with inline citations mapped to documents and passages."""

from __future__ import annotations

from loregraph.llm.answer import NOTHING_FOUND, LLMAnswerer, cited_numbers
from loregraph.llm.cache import SqliteResponseCache
from loregraph.models import Entity
from loregraph.retrieve.result import Passage, QueryAnalysis, RankedEntity, RetrievalResult

from .fake_server import FakeLLMServer, Reply

DOC = (
    "Count Dracula lives in a castle in Transylvania. "
    "He sails to England aboard the Demeter. "
    "The ship runs aground at Whitby in a storm."
)


def passage(i: int, start: int, end: int) -> Passage:
    return Passage(
        chunk_id=f"chk_{i}",
        document_id="doc_1",
        document_title="Dracula",
        seq=i,
        start=start,
        end=end,
        text=DOC[start:end],
        score=1.0 / (i + 1),
        found_by=["bm25"],
    )


def result(question: str = "How does Dracula reach England?") -> RetrievalResult:
    bounds = [(0, 48), (49, 88), (89, len(DOC))]
    count = Entity(id="ent_1", name="Count Dracula", type="Person", description="A vampire")
    return RetrievalResult(
        question=question,
        scope="default",
        preset="hybrid",
        analysis=QueryAnalysis(question=question),
        entities=[RankedEntity(entity=count, score=1.0, hop=0, is_seed=True)],
        passages=[passage(i, a, b) for i, (a, b) in enumerate(bounds)],
    )


def test_cited_numbers_reads_every_style() -> None:
    assert cited_numbers("a [2] b [1, 3] c [4][2] d [x]") == [2, 1, 3, 4]


async def test_streamed_answer_cites_passages(server: FakeLLMServer, make_client) -> None:
    reply = (
        "Dracula sails to England aboard the Demeter [2], which runs aground at Whitby [3]. "
        "The context does not say when he left [7]."
    )
    server.push(Reply(reply))
    client = make_client()
    stream = LLMAnswerer(client).stream(result())
    pieces = [piece async for piece in stream]
    answer = stream.answer
    assert answer is not None and answer.llm
    assert len(pieces) > 3  # streamed word by word, then the sources
    assert "".join(pieces) == answer.text
    assert answer.text.startswith(reply)
    assert [c.index for c in answer.citations] == [2, 3]
    second = answer.citations[0]
    assert (second.document_id, second.chunk_id, second.seq) == ("doc_1", "chk_1", 1)
    assert DOC[second.start : second.end] == second.quote
    assert "Sources:\n[2] Dracula, chunk 1" in answer.text
    assert client.usage.stage("answer").notes == {"invalid_citations": 1}
    request = server.chat_calls()[0]
    assert request.body["stream"] is True
    assert "[1] Dracula (chunk 0)" in request.last_user  # numbered passages in the context
    assert "say plainly what is missing" in request.system


async def test_nothing_retrieved_is_said_plainly_without_a_call(
    server: FakeLLMServer, make_client
) -> None:
    empty = result()
    empty.passages, empty.entities = [], []
    answer = await LLMAnswerer(make_client()).answer(empty)
    assert answer.text == NOTHING_FOUND
    assert server.chat_calls() == []


async def test_answer_streams_through_anthropic(server: FakeLLMServer, make_client) -> None:
    server.push(Reply("He sails on the Demeter [2]."))
    answer = await LLMAnswerer(make_client(provider="anthropic")).answer(result())
    assert [c.index for c in answer.citations] == [2]
    assert answer.text.endswith("(characters 49–88)")


async def test_asking_again_is_served_from_the_cache(
    server: FakeLLMServer, make_client, tmp_path
) -> None:
    server.push(Reply("He sails on the Demeter [2]."))
    answerer = LLMAnswerer(make_client(cache=SqliteResponseCache(tmp_path / "c.sqlite")))
    first = await answerer.answer(result())
    second = await answerer.answer(result())
    assert second.text == first.text and [c.index for c in second.citations] == [2]
    assert len(server.chat_calls()) == 1
