"""Store contract, through the engine: a repository read again after a function was
renamed in one file leaves no caller in another file pointing at the old name, on every
backend."""

from __future__ import annotations

from pathlib import Path

from loregraph import AsyncGraph
from loregraph.embed.hashing import HashingEmbedder
from loregraph.store.base import Store

from .scenarios import ContractBase

PRICING = "def price_of(item):\n    return item['price']\n"
CART = (
    "from shop.pricing import {name}\n\n\nclass Cart:\n    def total(self, items):\n"
    "        return sum({name}(i) for i in items)\n"
)


class CodeContract(ContractBase):
    """Source code read again, on the backend."""

    async def test_callers_follow_a_rename_in_another_file(
        self, store: Store, tmp_path: Path
    ) -> None:
        package = tmp_path / "repo" / "shop"
        package.mkdir(parents=True)
        (package / "__init__.py").write_text("")
        (package / "pricing.py").write_text(PRICING)
        (package / "cart.py").write_text(CART.format(name="price_of"))
        graph = AsyncGraph(store, embedder=HashingEmbedder(dim=64))

        async def calls() -> set[str]:
            found = await graph.explore.relations("shop.cart.Cart.total", type="CALLS")
            return {link.other_name for link in found.links}

        await graph.ingest(tmp_path / "repo")
        assert await calls() == {"shop.pricing.price_of"}
        (package / "pricing.py").write_text(PRICING.replace("price_of", "price_for"))
        again = await graph.ingest(tmp_path / "repo")  # cart.py itself did not change
        assert {d.title for d in again.replaced_documents} == {
            "shop/pricing.py",
            "shop/cart.py",
        }
        assert await calls() == set()  # the old name is defined nowhere: no link
        names = {e.name for e in await graph.explore.entities(limit=None)}
        assert "shop.pricing.price_of" not in names and "shop.pricing.price_for" in names
        (package / "cart.py").write_text(CART.format(name="price_for"))
        await graph.ingest(tmp_path / "repo")
        assert await calls() == {"shop.pricing.price_for"}
        unchanged = await graph.ingest(tmp_path / "repo")
        assert (unchanged.replaced, unchanged.skipped) == (0, 2), unchanged.summary()
