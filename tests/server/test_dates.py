"""Every date field of the API reads dates as the CLI does: ISO 8601 or a phrase such as
"last month"; anything else is a 422 naming the field and the accepted forms."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from loregraph import AsyncGraph

from .conftest import Client, Keys, problem


async def test_date_fields_take_what_the_cli_takes(
    graph: AsyncGraph, client: Client, keys: Keys
) -> None:
    async with client(keys.writer) as http:
        made = await http.post(
            "/memories", json={"text": "Lucy slept in Whitby.", "at": "yesterday"}
        )
        assert made.status_code == 201, made.text
        at = datetime.fromisoformat(made.json()["at"])
        assert at.date() == (datetime.now(UTC) - timedelta(days=1)).date()
        since = (await http.get("/memories", params={"since": "last month"})).json()
        assert made.json()["id"] in {m["id"] for m in since}
        day = at.date().isoformat()  # a date alone closing a range: its whole day, as --until
        until = (await http.get("/memories", params={"since": day, "until": day})).json()
        assert [m["id"] for m in until] == [made.json()["id"]]
        for path, params in [
            ("/search", {"q": "Harker", "as_of": "last month"}),
            ("/relations", {"name": "Jonathan Harker", "as_of": "last week"}),
            ("/neighbors", {"name": "Jonathan Harker", "as_of": "March 3, 2025"}),
        ]:
            response = await http.get(path, params=params)
            assert response.status_code == 200, (path, response.text)
        asked = await http.post("/ask/json", json={"question": "Who is Mina?", "as_of": "today"})
        assert asked.status_code == 200, asked.text


async def test_a_date_no_face_reads_is_refused_naming_the_field_and_the_forms(
    client: Client, keys: Keys
) -> None:
    async with client(keys.writer) as http:
        for sent in [
            http.post("/memories", json={"text": "Lucy slept.", "at": "whenever"}),
            http.get("/memories", params={"until": "whenever"}),
            http.get("/search", params={"q": "Harker", "as_of": "whenever"}),
            http.post("/context", json={"question": "Who?", "as_of": "whenever"}),
        ]:
            body = problem(await sent, 422, "invalid-request")
            assert "cannot read 'whenever' as a date" in body["detail"]
            assert "ISO 8601" in body["detail"] and "last month" in body["detail"]
            assert body["errors"][0]["loc"][-1] in {"at", "until", "as_of"}
        number = await http.post("/memories", json={"text": "Lucy slept.", "at": 0})
        assert "not a number" in problem(number, 422, "invalid-request")["detail"]
