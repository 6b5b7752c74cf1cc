"""A small invented family corpus: stories about Rose Albright, and a linked scope of her
friend Edna Pike's stories. Written for these tests; every name is made up."""

from __future__ import annotations

from pathlib import Path

import loregraph
from loregraph import Settings
from loregraph.embed.hashing import HashingEmbedder

ROSE = "albright"
EDNA = "pike"

STORIES: dict[str, list[tuple[str, str]]] = {
    ROSE: [
        (
            "The wedding",
            "Rose Albright married Walter Albright in June 1962 at Saint Brigid Church. "
            "Walter Albright was a quiet carpenter from Dunmore. Rose Albright wore her "
            "mother's lace veil, and Walter Albright cried during the vows.",
        ),
        (
            "Uncle Jim",
            "Jim Kowalski was the brother of Rose Albright. Jim Kowalski taught Rose "
            "Albright to fish when they were children. Everyone called him Uncle Jim, and "
            "Jim Kowalski told the same three jokes at every dinner.",
        ),
        (
            "The lake house",
            "Every summer the family drove to the lake house at Lake Winnecook. Rose "
            "Albright swam across Lake Winnecook each morning before breakfast. The lake "
            "house had a green porch and a leaking canoe.",
        ),
        (
            "The mill years",
            "Rose Albright worked at Bellweather Mills from 1971 to 1984. Harold Finch "
            "worked with Rose Albright on the weaving floor at Bellweather Mills. Harold "
            "Finch trained Rose Albright to run the looms, and she became a shift "
            "supervisor in 1978.",
        ),
        (
            "The family reunion",
            "The family reunion of 1985 was held at the lake house. Jim Kowalski grilled "
            "corn for forty people, and Walter Albright built a long table from old doors. "
            "It rained all afternoon at the reunion.",
        ),
        (
            "Chicago in the seventies",
            "In 1975 Rose Albright and Walter Albright spent a winter in Chicago. Rose "
            "Albright took night classes in Chicago and saw the lake frozen for the first "
            "time.",
        ),
    ],
    EDNA: [
        (
            "Meeting Rose",
            "Edna Pike met Rose Albright at Saint Brigid Church in 1958. Edna Pike and "
            "Rose Albright were friends for sixty years. Edna Pike remembers that Rose "
            "Albright laughed louder than anyone at the church picnic.",
        ),
        (
            "Letters",
            "Edna Pike wrote letters to Rose Albright every week after Edna Pike moved to "
            "Portland. Rose Albright kept the letters in a tin box.",
        ),
    ],
}


def family_graph(path: Path) -> loregraph.Graph:
    """A graph holding the corpus (both scopes), built once per path."""
    graph = loregraph.open(path, settings=Settings(scope=ROSE), embedder=HashingEmbedder(dim=64))
    if not graph.stats(scope=ROSE).documents:
        for scope, stories in STORIES.items():
            for title, text in stories:
                graph.ingest_text(text, title=title, scope=scope)
    return graph
