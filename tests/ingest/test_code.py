"""Source code read as a graph: what each language's parser finds, how a file is chunked,
and a Python package ingested from the command line, asked what a coding agent asks."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from tests.cli_runs import as_json, run

from loregraph.ingest.code.graph import code_chunks, code_extraction
from loregraph.ingest.code.manifests import parse_manifest
from loregraph.ingest.code.python import module_name, parse_python
from loregraph.ingest.code.stage import index_repository, parse_code
from loregraph.ingest.code.tags import parse_tagged

CART = '''"""Shopping carts."""
import os
from decimal import Decimal as D

from shop.pricing import price_of, Discount
from . import tax


class Cart:
    """A cart of items.

    More about carts."""

    def __init__(self):
        self.items = []

    def add(self, item):
        """Add an item."""
        self.items.append(item)
        return self.total()

    def total(self):
        limit = os.environ.get("CART_LIMIT")
        return sum(price_of(i) for i in self.items) + tax.on(D(0))


class VipCart(Cart):
    def total(self):
        return Discount(os.getenv("VIP_RATE")).apply(super().total())
'''
PRICING = '''"""Prices."""
from decimal import Decimal


def price_of(item):
    """The price of an item."""
    return Decimal(item["price"])


class Discount:
    def __init__(self, rate):
        self.rate = rate

    def apply(self, amount):
        return amount * (1 - Decimal(self.rate))
'''
TAX = """def on(amount):
    return amount
"""


def test_python_definitions_imports_calls_and_settings() -> None:
    code = parse_python("src/shop/cart.py", CART)
    assert code.module == "shop.cart" and code.doc == "Shopping carts."
    kinds = {s.qualified: (s.kind, s.parent) for s in code.symbols}
    assert kinds == {
        "shop.cart.Cart": ("class", None),
        "shop.cart.Cart.__init__": ("method", "shop.cart.Cart"),
        "shop.cart.Cart.add": ("method", "shop.cart.Cart"),
        "shop.cart.Cart.total": ("method", "shop.cart.Cart"),
        "shop.cart.VipCart": ("class", None),
        "shop.cart.VipCart.total": ("method", "shop.cart.VipCart"),
    }
    cart = code.symbols[0]
    assert cart.doc == "A cart of items." and cart.signature == "class Cart"
    assert CART[cart.start : cart.end].startswith("class Cart:") and cart.lines == (9, 24)
    assert code.symbols[2].signature == "def add(self, item)"
    assert code.symbols[4].bases == ["Cart"]
    imports = {(i.module, i.name, i.bound, i.internal) for i in code.imports}
    assert imports == {
        ("os", None, "os", False),
        ("decimal", "Decimal", "D", False),
        ("shop.pricing", "price_of", "price_of", True),
        ("shop.pricing", "Discount", "Discount", True),
        ("shop", "tax", "tax", True),
    }
    assert ("shop.cart.Cart.add", "self.total") in {(c.caller, c.callee) for c in code.calls}
    assert code.settings == {"CART_LIMIT": 23, "VIP_RATE": 29}
    assert module_name("click/__init__.py") == "click"
    assert module_name("lib/pkg/sub/__init__.py") == "pkg.sub"
    assert module_name("tool.py") == "tool"


def test_other_languages_through_their_tags() -> None:
    js = parse_tagged(
        "lib/core/a.js",
        "import x, {a as b} from './util/x.js';\nconst fs = require('fs');\n"
        "class A extends B { m() { return this.n(helper()); } }\nfunction helper() {}\n",
        "javascript",
    )
    assert [(s.qualified, s.kind) for s in js.symbols] == [
        ("lib/core/a.A", "class"),
        ("lib/core/a.A.m", "method"),
        ("lib/core/a.helper", "function"),
    ]
    assert {(i.module, i.name, i.bound, i.internal) for i in js.imports} == {
        ("lib/core/util/x", None, "x", True),
        ("lib/core/util/x", "a", "b", True),
        ("fs", None, "fs", False),
    }
    assert ("lib/core/a.A.m", "helper") in {(c.caller, c.callee) for c in js.calls}
    ts = parse_code(
        "src/c.ts", "import {Client} from '@scope/pkg/sub';\nexport class C {}\n", "typescript"
    )
    assert [s.qualified for s in ts.symbols] == ["src/c.C"]
    assert [(i.module, i.internal) for i in ts.imports] == [("@scope/pkg", False)]
    go = parse_tagged(
        "cmd/root.go",
        'package cmd\nimport "fmt"\ntype T struct{}\nfunc (t *T) Run() { fmt.Println(helper()) }\n'
        "func helper() int { return 1 }\n",
        "go",
    )
    assert {(s.qualified, s.kind) for s in go.symbols} == {
        ("cmd.T", "class"),
        ("cmd.T.Run", "method"),
        ("cmd.helper", "function"),
    }
    rust = parse_tagged(
        "src/shapes.rs",
        "use crate::geo::Point;\nuse serde::Deserialize;\nstruct S;\n"
        "impl S { fn area(&self) -> f64 { helper() } }\nfn helper() -> f64 { 1.0 }\n",
        "rust",
    )
    assert ("src/shapes.S.area", "method") in {(s.qualified, s.kind) for s in rust.symbols}
    assert {(i.module, i.internal) for i in rust.imports} == {
        ("crate::geo::Point", True),
        ("serde", False),
    }
    java = parse_tagged(
        "src/a/b/C.java",
        "package a.b;\nimport java.util.List;\nimport a.x.Y;\n"
        "public class C extends D { void m() { helper(); } static void helper() {} }\n",
        "java",
    )
    assert [s.qualified for s in java.symbols] == ["a.b.C", "a.b.C.m", "a.b.C.helper"]
    assert {(i.module, i.internal) for i in java.imports} == {("java.util", False), ("a.x.Y", True)}


def test_chunks_cover_the_file_and_cut_long_classes_into_methods() -> None:
    methods = "".join(f"    def m{i}(self):\n" + "        x = 1\n" * 40 for i in range(10))
    text = '"""Doc."""\nimport os\n\n\nclass Big:\n' + methods + "\n\ndef tail():\n    return 1\n"
    code = parse_python("big.py", text)
    chunks = code_chunks(code, text)
    assert all(text[c.start : c.end] == c.text for c in chunks)
    covered = {i for c in chunks for i in range(c.start, c.end)}
    assert all(i in covered for i, char in enumerate(text) if not char.isspace())
    assert all(a.end <= b.start for a, b in itertools.pairwise(chunks))
    assert [c.seq for c in chunks] == list(range(len(chunks)))
    assert any(c.text.startswith("    def m3(self):") for c in chunks)
    assert "def tail():" in chunks[-1].text
    assert all(len(c.text) <= 1000 for c in chunks)
    assert chunks[0].text.startswith('"""Doc."""') and "class Big:" in chunks[0].text  # packed
    short = code_chunks(code, text, size=200)  # a method longer than a chunk: cut at lines
    assert all(len(c.text) <= 200 and c.text.endswith("\n") for c in short[:-1])


def test_the_graph_of_a_file_links_what_resolves_and_nothing_else() -> None:
    code = parse_python("src/shop/cart.py", CART)
    chunks = code_chunks(code, CART)
    result = code_extraction(code, CART, chunks)
    types = {e.name: e.type for e in result.entities}
    assert all(e.exact for e in result.entities)
    assert types["src/shop/cart.py"] == "File" and types["shop.cart"] == "Module"
    assert types["shop.cart.Cart"] == "Class" and types["shop.cart.Cart.add"] == "Function"
    assert types["os"] == types["decimal"] == "Library" and types["CART_LIMIT"] == "Config"
    triples = {(r.source, r.type, r.target): r for r in result.relations}
    assert ("shop.cart.Cart.add", "CALLS", "shop.cart.Cart.total") in triples  # self.total()
    via = triples["shop.cart.Cart.total", "CALLS", "shop.pricing.price_of"]
    assert via.confidence == 0.8 and "via import" in via.fact
    assert via.evidence[0].sentence.startswith("return sum(price_of(i)")
    assert ("shop.cart.Cart.total", "CALLS", "shop.tax.on") in triples  # a module imported
    assert ("shop.cart.VipCart", "INHERITS", "shop.cart.Cart") in triples
    assert ("src/shop/cart.py", "IMPORTS", "shop.pricing") in triples
    assert ("shop", "CONTAINS", "shop.cart") in triples
    assert ("shop.cart.Cart", "CONTAINS", "shop.cart.Cart.add") in triples
    assert not any(r.target in ("sum", "super", "D") for r in result.relations)  # built-ins


PYPROJECT = """[project]
name = "shop"
dependencies = [
    "requests>=2.31",
    "attrs",
]

[project.optional-dependencies]
fast = ["orjson==3.10.0 ; python_version >= '3.11'"]
"""


def test_manifests_declare_dependencies() -> None:
    py = parse_manifest("pyproject.toml", PYPROJECT)
    assert py.project == "shop"
    assert [(d.name, d.version) for d in py.dependencies] == [
        ("requests", ">=2.31"),
        ("attrs", ""),
        ("orjson", "==3.10.0"),
    ]
    js = parse_manifest(
        "web/package.json",
        '{"name": "web", "dependencies": {"axios": "^1.7"}, "devDependencies": {"vitest": "2"}}',
    )
    assert (js.project, [d.name for d in js.dependencies]) == ("web", ["axios", "vitest"])
    go = parse_manifest(
        "go.mod",
        "module github.com/me/tool\n\nrequire (\n\tgithub.com/spf13/cobra v1.8.0\n)\n"
        "require golang.org/x/sys v0.1.0 // indirect\n",
    )
    assert go.project == "github.com/me/tool"
    assert [(d.name, d.version) for d in go.dependencies] == [
        ("github.com/spf13/cobra", "v1.8.0"),
        ("golang.org/x/sys", "v0.1.0"),
    ]
    rust = parse_manifest(
        "Cargo.toml", '[package]\nname = "geo"\n[dependencies]\nserde = { version = "1" }\n'
    )
    assert (rust.project, [(d.name, d.version) for d in rust.dependencies]) == (
        "geo",
        [("serde", "1")],
    )
    req = parse_manifest("requirements.txt", "# pinned\nflask==3.0  # web\n-r other.txt\nnumpy\n")
    assert [d.name for d in req.dependencies] == ["flask", "numpy"]
    assert parse_manifest("package.json", "{not json").dependencies == []


CHECKOUT = """from shop import Cart
from shop.cart import VipCart


def checkout(items):
    cart = Cart()
    for item in items:
        cart.add(item)
    return VipCart().pay(), Cart.missing(), Cart.total(cart)


class Express(VipCart):
    def fast(self):
        return self.add(1), self.nothing()
"""


def test_the_repository_index_follows_re_exports_and_bases() -> None:
    files = {
        "src/shop/__init__.py": '"""A tiny shop."""\nfrom .cart import Cart\n',
        "src/shop/cart.py": CART,
        "src/shop/pricing.py": PRICING,
        "src/shop/tax.py": TAX,
        "src/shop/checkout.py": CHECKOUT + "    def pay(self):\n        return 0\n",
    }
    index = index_repository(files.items())
    assert index.resolve("shop.Cart") == ("shop.cart.Cart", "re-export")
    assert index.resolve("shop.cart.VipCart.add") == ("shop.cart.Cart.add", "inherited")
    assert index.resolve("shop.checkout.Express.add") == ("shop.cart.Cart.add", "inherited")
    assert index.resolve("shop.cart.Cart.missing") is None
    assert index.resolve("elsewhere.thing") is None
    code = parse_python("src/shop/checkout.py", files["src/shop/checkout.py"])
    result = code_extraction(code, files["src/shop/checkout.py"], [], index)
    calls = {
        (r.source, r.target): (r.confidence, r.fact) for r in result.relations if r.type == "CALLS"
    }
    assert calls["shop.checkout.checkout", "shop.cart.Cart"][0] == 0.9  # through shop/__init__
    assert calls["shop.checkout.checkout", "shop.cart.Cart.total"][0] == 0.9
    assert calls["shop.checkout.Express.fast", "shop.cart.Cart.add"] == (
        0.9,
        "shop.checkout.Express.fast calls shop.cart.Cart.add (via import, inherited)",
    )
    assert not any("missing" in t or "nothing" in t for _, t in calls)  # defined nowhere
    bases = [(r.source, r.target, r.confidence) for r in result.relations if r.type == "INHERITS"]
    assert bases == [("shop.checkout.Express", "shop.cart.VipCart", 0.95)]
    again = index_repository(files.items())  # read again: the same names, kept
    assert again.resolve("shop.cart.VipCart.add") == ("shop.cart.Cart.add", "inherited")
    renamed = {**files, "src/shop/cart.py": CART.replace("def add(", "def put(")}
    changed = index_repository(renamed.items())  # a changed text is parsed again
    assert changed.resolve("shop.cart.VipCart.add") is None
    assert changed.resolve("shop.cart.VipCart.put") == ("shop.cart.Cart.put", "inherited")
    alone = code_extraction(code, files["src/shop/checkout.py"], [])  # no index: as written
    assert ("shop.checkout.checkout", "CALLS", "shop.Cart") in {
        (r.source, r.type, r.target) for r in alone.relations
    }


SESSION = """from shop.base import Base


class Session(Base):
    def __init__(self, adapter):
        self.adapter = adapter
        self.sent = []

    def go(self, request):
        self.sent.append(request)
        return self.adapter.send(request)

    def close(self, conn, job):
        job.run()
        return conn.shutdown()
"""
NET = """class HTTPAdapter:
    def send(self, request):
        return request


class Socket:
    def send(self, data):
        return data
"""
JOBS = (
    "".join(f"class Job{n}:\n    def run(self):\n        return {n}\n\n\n" for n in range(4))
    + "class Pool:\n    def shutdown(self):\n        return 0\n"
)


def test_a_method_on_a_receiver_of_unknown_type_gets_ranked_candidates(tmp_path: Path) -> None:
    package = tmp_path / "repo" / "shop"
    package.mkdir(parents=True)
    for name, text in (("session", SESSION), ("net", NET), ("jobs", JOBS), ("base", "")):
        (package / f"{name}.py").write_text(text or "class Base:\n    pass\n")
    db = tmp_path / "code.db"
    assert run(db, "ingest", str(package.parent)).exit_code == 0
    out = as_json(db, "relations", "shop.session.Session.go", "--type", "CALLS", "--out")
    calls = {r["other"]: (r["confidence"], r["fact"]) for r in out["relations"]}
    assert calls == {  # self.adapter.send(): the class named like the receiver first
        "shop.net.HTTPAdapter.send": (
            0.25,
            "shop.session.Session.go calls shop.net.HTTPAdapter.send "
            "(by name only, candidate 1 of 2)",
        ),
        "shop.net.Socket.send": (
            0.17,
            "shop.session.Session.go calls shop.net.Socket.send (by name only, candidate 2 of 2)",
        ),
    }  # and self.sent.append() is a list's, linked to nothing
    out = as_json(db, "relations", "shop.session.Session.close", "--type", "CALLS", "--out")
    assert [(r["other"], r["confidence"]) for r in out["relations"]] == [
        ("shop.jobs.Pool.shutdown", 0.5)
    ]  # job.run(): four classes define run, too many to guess among
    (package / "pool.py").write_text("class Pool:\n    def shutdown(self):\n        return 1\n")
    again = as_json(db, "ingest", str(package.parent))
    # session.py did not change, but its candidates did: it is read again
    assert [d["title"] for d in again["replaced_documents"]] == ["shop/session.py"]
    out = as_json(db, "relations", "shop.session.Session.close", "--type", "CALLS", "--out")
    assert {(r["other"], r["confidence"]) for r in out["relations"]} == {
        ("shop.jobs.Pool.shutdown", 0.25),  # as near and as named: in the order of names
        ("shop.pool.Pool.shutdown", 0.17),
    }


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    package = tmp_path / "repo" / "src" / "shop"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text('"""A tiny shop."""\nfrom .cart import Cart\n')
    (package / "cart.py").write_text(CART)
    (package / "pricing.py").write_text(PRICING)
    (package / "tax.py").write_text(TAX)
    (tmp_path / "repo" / "pyproject.toml").write_text(PYPROJECT)
    (tmp_path / "repo" / "README.md").write_text(
        "# Notes\n\nWhat the tests ingest beside the code.\n"
    )
    return tmp_path / "repo"


def test_a_package_ingested_answers_what_a_coding_agent_asks(shop: Path, tmp_path: Path) -> None:
    db = tmp_path / "code.db"
    done = run(db, "ingest", str(shop))
    assert done.exit_code == 0, done.output
    functions = {e["name"] for e in as_json(db, "entities", "--type", "Function")}
    assert functions == {
        "shop.cart.Cart.__init__",
        "shop.cart.Cart.add",
        "shop.cart.Cart.total",
        "shop.cart.VipCart.total",
        "shop.pricing.price_of",
        "shop.pricing.Discount.__init__",
        "shop.pricing.Discount.apply",
        "shop.tax.on",
    }
    imports = as_json(db, "relations", "src/shop/cart.py", "--type", "IMPORTS")
    assert {r["other"] for r in imports["relations"]} == {
        "os",
        "decimal",
        "shop.pricing",
        "shop",
    }
    around = as_json(db, "neighbors", "shop.cart.Cart.total")
    near = {e["name"] for e in around["entities"]}
    assert {
        "shop.cart.Cart.add",
        "shop.pricing.price_of",
        "shop.tax.on",
    } <= near  # callers, callees
    paths = as_json(db, "path", "shop.cart", "shop.pricing")
    assert (
        paths
        and paths[0]["entities"][0] == "shop.cart"
        and paths[0]["entities"][-1] == "shop.pricing"
    )
    hit = as_json(db, "impact", "shop.pricing.price_of")
    chain = {(d["name"], d["distance"], d["via"]) for d in hit["dependents"]}
    assert {("shop.cart.Cart.total", 1, "CALLS"), ("shop.cart.Cart.add", 2, "CALLS")} <= chain
    module = as_json(db, "impact", "shop.pricing")  # a file stands for the module it defines
    reached = {(d["name"], d["distance"]) for d in module["dependents"]}
    assert {("src/shop/cart.py", 1), ("src/shop/__init__.py", 2)} <= reached
    depends = as_json(db, "relations", "shop", "--type", "DEPENDS_ON")
    declared = {r["other"]: r["evidence"] for r in depends["relations"]}
    assert set(declared) == {"requests", "attrs", "orjson"}
    assert declared["requests"] == ['"requests>=2.31",']
    hits = as_json(db, "search", "price of an item")
    assert hits["hits"][0]["title"] == "src/shop/pricing.py"
    told = run(db, "context", "price of an item").output  # a source file's passage by line
    last = PRICING.rstrip("\n").count("\n") + 1
    assert f"src/shop/pricing.py:1-{last}" in told and "characters" not in told.split("\n[2]")[0]


def test_a_repository_read_again_with_prune_loses_its_deleted_files(
    shop: Path, tmp_path: Path
) -> None:
    db = tmp_path / "code.db"
    assert run(db, "ingest", str(shop)).exit_code == 0
    assert "shop.pricing.Discount.apply" in {e["name"] for e in as_json(db, "entities")}
    (shop / "src" / "shop" / "pricing.py").unlink()
    kept = as_json(db, "ingest", str(shop))  # without --prune: the document stays
    assert kept["removed_documents"] == [] and kept["skipped"] == 4
    # cart.py did not change, but what it calls is no longer in the folder: read again
    assert [d["title"] for d in kept["replaced_documents"]] == ["src/shop/cart.py"]
    assert any(d["title"] == "src/shop/pricing.py" for d in as_json(db, "documents"))
    pruned = as_json(db, "ingest", str(shop), "--prune")
    assert [d["title"] for d in pruned["removed_documents"]] == ["src/shop/pricing.py"]
    assert all(d["title"] != "src/shop/pricing.py" for d in as_json(db, "documents"))
    names = {e["name"] for e in as_json(db, "entities")}
    assert "shop.pricing.Discount.apply" not in names  # only the deleted file defined it
    assert "shop.pricing.price_of" not in names  # and the caller no longer links to it
    again = run(db, "ingest", str(shop), "--prune")
    assert again.exit_code == 0 and "Removed" not in again.output


def test_a_javascript_default_import_is_followed_to_what_the_module_exports(
    tmp_path: Path,
) -> None:
    core = tmp_path / "repo" / "lib" / "core"
    core.mkdir(parents=True)
    (core / "mergeConfig.js").write_text(
        "export default function mergeConfig(a, b) {\n  return Object.assign({}, a, b);\n}\n"
    )
    (core / "Axios.js").write_text(
        "import mergeConfig from './mergeConfig.js';\n\n"
        "class Axios {\n  request(config) {\n    return mergeConfig(this.defaults, config);\n"
        "  }\n}\n\nexport default Axios;\n"
    )
    db = tmp_path / "js.db"
    assert run(db, "ingest", str(tmp_path / "repo")).exit_code == 0
    out = as_json(db, "relations", "lib/core/Axios.Axios.request", "--type", "CALLS", "--out")
    assert [(r["other"], r["confidence"]) for r in out["relations"]] == [
        ("lib/core/mergeConfig.mergeConfig", 0.9)  # the function, not its module
    ]
    assert "default export" in out["relations"][0]["fact"]
    index = index_repository([("lib/core/Axios.js", (core / "Axios.js").read_text())])
    assert index.resolve("lib/core/Axios") == ("lib/core/Axios.Axios", "default export")
