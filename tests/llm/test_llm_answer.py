"""Streamed answers with inline citations mapped to documents and passages."""

from __future__ import annotations

from loregraph.answer.llm import NOTHING_FOUND, LLMAnswerer, cited_numbers
from loregraph.llm.cache import SqliteResponseCache
from loregraph.llm.resilience import CircuitBreaker
from loregraph.models import Entity
from loregraph.retrieve.results.result import Passage, QueryAnalysis, RankedEntity, RetrievalResult

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
        entities=[RankedEntity(entity=count, score=1.0, hop=0, is_start=True)],
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
    assert answer.text.startswith(reply.replace(" [7]", ""))  # no passage 7: removed
    assert [c.index for c in answer.citations] == [2, 3]
    second = answer.citations[0]
    assert (second.document_id, second.chunk_id, second.seq) == ("doc_1", "chk_1", 1)
    assert DOC[second.start : second.end] == second.quote
    assert "Sources:\n[2] Dracula, chunk 1" in answer.text
    assert client.usage.stage("answer").notes == {"invalid_citations": 1}
    request = server.chat_calls()[0]
    assert request.body["stream"] is True
    assert "[1] Dracula (characters " in request.last_user  # numbered passages
    assert "say plainly what is missing" in request.system


async def test_nothing_retrieved_is_said_plainly_without_a_call(
    server: FakeLLMServer, make_client
) -> None:
    empty = result()
    empty.passages, empty.entities = [], []
    answer = await LLMAnswerer(make_client()).answer(empty)
    assert answer.text == NOTHING_FOUND
    assert server.chat_calls() == []


async def test_an_irrelevant_retrieval_is_answered_without_the_model(
    server: FakeLLMServer, make_client
) -> None:
    unrelated = result("zzzzqqq xyzzy?")
    unrelated.relevant = False
    stream = LLMAnswerer(make_client()).stream(unrelated)
    text = "".join([piece async for piece in stream])
    assert stream.answer is not None and not stream.answer.found
    assert text == stream.answer.text and not stream.answer.citations
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


# ---------------------------------------------------------------- weak models (Gemma 3 270M)
LOOPING = (
    "Dracula sails to England aboard the Demeter [2].\n"
    "[56] dracula, chunk 20 (characters 45012–46011)\n"
    "[57] dracula, chunk 21 (characters 46012–47011)\n"
    + "The ship runs aground at Whitby in a storm [3].\n"
    * 40
)
"""How the small model answered: its own numbered "sources", then the same line again."""


async def _pieces(answerer: LLMAnswerer) -> tuple[list[str], object]:
    stream = answerer.stream(result())
    pieces = [piece async for piece in stream]
    return pieces, stream.answer


async def test_a_looping_answer_is_stopped_and_invented_sources_dropped(
    server: FakeLLMServer, make_client
) -> None:
    server.push(Reply(LOOPING))
    client = make_client()
    pieces, answer = await _pieces(LLMAnswerer(client))
    assert answer is not None and answer.llm
    assert "".join(pieces) == answer.text
    assert answer.text.count("runs aground at Whitby") == 1
    assert "[56]" not in answer.text and "chunk 20" not in answer.text
    assert "(The model began repeating itself, so its answer was stopped there.)" in answer.text
    assert answer.text.endswith(
        "Sources:\n[2] Dracula, chunk 1 (characters 49–88)\n"
        "[3] Dracula, chunk 2 (characters 89–132)"
    )
    assert [c.index for c in answer.citations] == [2, 3]
    notes = client.usage.stage("answer").notes
    assert notes["invented_sources"] == 2 and notes["stopped_repetition"] == 1
    assert server.chat_calls()[0].body["max_tokens"] == 512  # the default cap


async def test_an_answer_citing_no_passage_falls_back_to_the_quoted_passages(
    server: FakeLLMServer, make_client
) -> None:
    server.push(Reply("Dracula goes to England [56].\n[56] dracula, chunk 20"))
    client = make_client()
    pieces, answer = await _pieces(LLMAnswerer(client))
    assert answer is not None and not answer.llm
    assert "".join(pieces) == answer.text
    assert answer.text.startswith(
        "The model's answer could not be used (it cited none of the passages), "
        "so this answer quotes the most relevant passages."
    )
    assert "Dracula goes to England" not in answer.text  # nothing of it was shown
    assert answer.citations and all(DOC[c.start : c.end] == c.quote for c in answer.citations)
    assert client.usage.stage("answer").fallbacks == 1


async def test_an_empty_answer_falls_back(server: FakeLLMServer, make_client) -> None:
    server.push(Reply(""))
    answer = await LLMAnswerer(make_client()).answer(result())
    assert answer.text.startswith("The model's answer could not be used (it was empty)")
    assert not answer.llm and answer.citations


async def test_a_base_models_non_answer_falls_back(server: FakeLLMServer, make_client) -> None:
    server.push(Reply(" <<SYS>>"))  # what Gemma 3 270M (base) answered through llama.cpp
    answer = await LLMAnswerer(make_client()).answer(result())
    assert answer.text.startswith(
        "The model's answer could not be used (it was too short to be an answer)"
    )
    assert "<<SYS>>" not in answer.text and answer.citations


async def test_a_failing_model_falls_back(server: FakeLLMServer, make_client) -> None:
    server.push(Reply(status=500, error="model crashed"), Reply(status=500, error="model crashed"))
    client = make_client(max_retries=1, breaker=CircuitBreaker(failure_threshold=5))
    answer = await LLMAnswerer(client).answer(result())
    assert answer.text.startswith("The model's answer could not be used (the model failed:")
    assert "model crashed" in answer.text and answer.citations


async def test_the_answer_is_cut_at_the_time_limit(server: FakeLLMServer, make_client) -> None:
    sentences = [f"Sentence number {n} about the voyage of the Demeter [2]. " for n in range(30)]
    server.push(Reply(chunks=sentences))
    ticks = iter(range(0, 10_000, 10))
    answerer = LLMAnswerer(make_client(), time_limit=35, clock=lambda: float(next(ticks)))
    pieces, answer = await _pieces(answerer)
    assert answer is not None and answer.llm and "".join(pieces) == answer.text
    assert "Sentence number 2 " in answer.text and "Sentence number 3 " not in answer.text
    assert "(The answer was cut off at the 35-second time limit.)" in answer.text


async def test_an_answer_cut_at_the_token_limit_says_so(server: FakeLLMServer, make_client) -> None:
    server.push(Reply("The Demeter carries Dracula to England [2]. Then he", finish="length"))
    answer = await LLMAnswerer(make_client(), max_tokens=12).answer(result())
    assert answer.llm
    assert "(The answer was cut off at the 12-token limit.)" in answer.text
    assert server.chat_calls()[0].body["max_tokens"] == 12
