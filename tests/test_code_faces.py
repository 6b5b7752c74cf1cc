"""A coding agent's questions about an indexed repository: ``explore.code`` assembles the
definitions a question names or its passages show, with their place, code and links, and
the notes beside them; the command line, the HTTP API and MCP give the same JSON for it and
for ``impact``."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
from mcp import Client

from cli_runs import run
from loregraph import AsyncGraph
from loregraph.mcp import build_server
from loregraph.server import ServerConfig, create_app
from loregraph.store.sqlite import SqliteStore
from tool_results import structured

PRICING = '''"""Prices."""


def price_of(item):
    """The price of an item."""
    return item["price"]


class Discount:
    """A discount on a price."""

    def __init__(self, rate):
        self.rate = rate

    def apply(self, amount):
        return amount * (1 - self.rate)
'''
CART = """from shop.pricing import price_of


class Cart:
    def total(self, items):
        return sum(price_of(i) for i in items)

    def checkout(self, items, offer):
        return offer.apply(self.total(items))
"""


RATES = "def rates(kind):\n" + "".join(  # one function over several chunks
    f"    if kind == 'rate number {n}':\n        return {n} / 100  # a rate of the table\n\n"
    for n in range(30)
)


def _repo(tmp_path: Path) -> Path:
    package = tmp_path / "repo" / "shop"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "pricing.py").write_text(PRICING)
    (package / "cart.py").write_text(CART)
    (package / "tax.py").write_text("def tax(amount):\n    return amount\n")
    (package / "rates.py").write_text(RATES)
    return tmp_path / "repo"


async def _asked(db: Path) -> tuple[Any, Any]:
    graph = AsyncGraph(SqliteStore(db))  # the default embedder, as the command line's
    await graph.open()
    try:
        await graph.ingest(_repo(db.parent))
        when = datetime(2026, 3, 2, 10, tzinfo=UTC)
        await graph.memories.remember("Rounding in Discount.apply was fixed by Dana.", at=when)
        await graph.memories.remember("We always call price_of() before totals.", at=when)
        for query, named in (("rounding", "Discount.apply"), ("totals", "price_of")):
            mentioned = (await graph.memories.search(query, limit=1))[0].entities
            # a name written as code in a memory is the code's own entity
            assert f"shop.pricing.{named}" in [e.name for e in mentioned], mentioned
        found = await graph.explore.code("What calls price_of()?", limit=3)
        first = found.symbols[0]
        assert (first.name, first.location, first.found_by) == (
            "shop.pricing.price_of",
            "shop/pricing.py:4-6",
            "named",
        )
        assert first.callers == ["shop.cart.Cart.total"] and first.within == "shop.pricing"
        assert first.code.startswith("def price_of(item):") and first.code.endswith('["price"]')
        called = await graph.explore.code("Where is tax() defined?", limit=1)
        assert called.symbols[0].name == "shop.tax.tax"  # the function, not its module
        long = (await graph.explore.code("rates()", limit=1)).symbols[0]
        assert long.location == f"shop/rates.py:1-{RATES.count(chr(10)) - 1}"
        shown = "\n".join(RATES.split("\n")[:40]).rstrip("\n")  # its first 40 lines
        assert long.code == shown + "\n..."
        apply = await graph.explore.code("Discount.apply")
        assert apply.symbols[0].callers == ["shop.cart.Cart.checkout (by name only)"]
        discount = await graph.explore.code("HTTPAdapter or Discount")  # a class: its header
        cls = next(s for s in discount.symbols if s.name == "shop.pricing.Discount")
        assert cls.members == ["__init__", "apply"]
        assert cls.code == 'class Discount:\n    """A discount on a price."""'
        fixed = await graph.explore.code("how is the discount rate applied to an amount?")
        assert "shop.pricing.Discount.apply" in [s.name for s in fixed.symbols]
        assert any(n.kind == "memory" and "Dana" in n.text for n in fixed.notes)
        assert "[memory (2026-03-02)] Rounding in Discount.apply" in fixed.text
        app = create_app(graph, ServerConfig(auth=False))
        transport = httpx.ASGITransport(app=app)
        async with (
            httpx.AsyncClient(transport=transport, base_url="http://localhost") as http,
            Client(build_server(graph)) as mcp,
        ):
            asked = {"question": "What calls price_of()?", "limit": 3}
            code = (await http.get("/code", params=asked)).json()
            assert code == structured(await mcp.call_tool("explore", asked))
            assert code == found.to_dict()
            hit = (await http.get("/impact", params={"name": "shop.pricing.price_of"})).json()
            assert hit["dependents"][0]["name"] == "shop.cart.Cart.total"
            assert hit == structured(
                await mcp.call_tool("impact", {"name": "shop.pricing.price_of"})
            )
    finally:
        await graph.close()
    return code, hit


def test_the_code_context_on_every_face(tmp_path: Path) -> None:
    db = tmp_path / "code.db"
    code, hit = asyncio.run(_asked(db))
    done = run(db, "code", "What calls price_of()?", "-n", "3", "--json")
    assert done.exit_code == 0, done.output
    assert json.loads(done.stdout) == code
    done = run(db, "impact", "shop.pricing.price_of", "--json")
    assert json.loads(done.stdout) == hit
    shown = run(db, "code", "What calls price_of()?", "-n", "1")
    assert "## shop.pricing.price_of (Function) — shop/pricing.py:4-6" in shown.stdout
    assert "- called by: shop.cart.Cart.total" in shown.stdout
    blank = run(db, "code", "  ")
    assert blank.exit_code != 0 and "question is empty" in blank.output
