"""Remakes docs/explorer.png, the README's picture of the explorer, from the current build:
``loregraph serve --no-auth`` over the demo store, Debian's Chromium (through Playwright),
Lucy Westenra opened from the search box, Dracula and Mina Harker expanded, Lucy's panel and
a streamed answer with its citations. Prints the answer, to be checked before committing
the picture.

    make install demo        # once: the server and Playwright; .demo/dracula.db
    .venv/bin/python -m tests.explorer.docs_shot [--db .demo/dracula.db]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from .conftest import CHROMIUM, CHROMIUM_ARGS, ROOT, _serving
from .test_page import settle

QUESTION = "Who gave blood to Lucy in the transfusions?"
CENTRE = "Lucy Westenra"
EXPANDED = ("Dracula", "Mina Harker")


def picture(page: Any, question: str) -> str:
    """Brings the page to the pictured state; returns the answer's text."""
    settle(page)
    page.locator("#search").press_sequentially(CENTRE, delay=20)
    page.locator("#suggestions li", has_text=CENTRE).first.click()
    settle(page)
    for name in EXPANDED:
        page.evaluate("(name) => window.__explorer.explorer.expand(name)", name)
        settle(page)
    page.evaluate("(name) => window.__explorer.explorer.select(name)", CENTRE)
    settle(page)
    page.locator("#ask-input").fill(question)
    page.locator("#ask-button").click()
    page.wait_for_function(
        "() => window.__explorer.explorer.asker.received.at(-1) === 'answer'", timeout=120_000
    )
    page.locator("#citations li").first.wait_for()
    page.mouse.move(5, 5)  # no node under the pointer (it would dim the others)
    page.wait_for_timeout(300)
    answer: str = page.locator("#answer").inner_text()
    return answer


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", type=Path, default=ROOT / ".demo" / "dracula.db")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "explorer.png")
    parser.add_argument("--question", default=QUESTION)
    options = parser.parse_args(argv)
    if not options.db.is_file():
        print(f"error: no store at {options.db}: run `make demo` first", file=sys.stderr)
        return 2
    from playwright.sync_api import sync_playwright

    with _serving(options.db, "--no-auth") as url, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 860})
        page.goto(url + "/")
        answer = picture(page, options.question)
        page.screenshot(path=options.out)
        browser.close()
    print(f"{options.question}\n\n{answer}\n\nwritten to {options.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
