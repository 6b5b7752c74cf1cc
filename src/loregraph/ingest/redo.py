"""Processing stored documents again, as ingest would, after a merge decision changed.

A document's text is rebuilt from its stored chunks (they cover every character that is not
blank; the blank runs between chunks that do not overlap are filled in and the result is
checked against the document's content hash, so the text is exactly the one ingested), then
it goes through the pipeline again: extract → cluster → select → resolve → relate → write,
replacing the stored document in one transaction. Resolution honours the scope's decisions
and, for every other name of the document, the links it had before
(:class:`~loregraph.ingest.decisions.Pins`): only what a decision changed moves.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from loregraph.errors import LoregraphError
from loregraph.ingest.decisions import Pins
from loregraph.ingest.pipeline import IngestPipeline, Pending
from loregraph.ingest.report import IngestReport
from loregraph.ingest.types import SourceDocument, TextChunk
from loregraph.models import Chunk, Document, DocumentBundle, content_hash

MAX_TRIES = 4096
"""At most this many ways of filling the blank runs are tried (their hash checked)."""


def _fills(n: int) -> list[str]:
    """Likely contents of a blank run of ``n`` characters, the likeliest first."""
    found = ["\n" * n, " " * n, " " + "\n" * (n - 1), "\n" * (n - 1) + " "]
    found += [" " * (n - 1) + "\n", "\n" + " " * (n - 1)]
    return list(dict.fromkeys(found))


def rebuild_text(document: Document, chunks: Sequence[Chunk]) -> str:
    """The document's stored text from its chunks; raises :class:`LoregraphError` when no
    way of filling the blank runs between them gives back the text's content hash."""
    pieces: list[str] = []
    gaps: list[int] = []
    end = 0
    for chunk in sorted(chunks, key=lambda c: c.seq):
        if chunk.start > end:
            gaps.append(len(pieces))
            pieces.append(" " * (chunk.start - end))
        if chunk.end > end:
            pieces.append(chunk.text[max(end - chunk.start, 0) :])
            end = chunk.end
    if end < document.char_count:
        gaps.append(len(pieces))
        pieces.append(" " * (document.char_count - end))
    options = [_fills(len(pieces[g])) for g in gaps]
    for choice in itertools.islice(itertools.product(*options), MAX_TRIES):
        for g, fill in zip(gaps, choice, strict=True):
            pieces[g] = fill
        text = "".join(pieces)
        if content_hash(text) == document.content_hash:
            return text
    raise LoregraphError(
        f"document {document.title or document.id!r} cannot be processed again: its text "
        "cannot be rebuilt exactly from its chunks; ingest its file again instead"
    )


def pending_of(bundle: DocumentBundle) -> Pending:
    """A stored document as the pipeline's work item: its text rebuilt from its chunks
    (:func:`rebuild_text`), its chunks as they are, replacing it when written."""
    doc = bundle.document
    source = SourceDocument(
        title=doc.title,
        text=rebuild_text(doc, bundle.chunks),
        source=doc.source,
        metadata=dict(doc.metadata),
        kind=doc.kind,
        valid_at=doc.valid_at,
        visibility=doc.visibility,
        owner=doc.owner,
    )
    chunks = [TextChunk(c.seq, c.start, c.end, c.text, c.token_count) for c in bundle.chunks]
    return Pending(source, doc.id, doc.content_hash, True, chunks, doc.created_at)


async def reprocess(
    pipeline: IngestPipeline, scope: str, document_ids: Sequence[str]
) -> IngestReport:
    """Process these stored documents of ``scope`` again, one at a time, in order (unknown
    ids are skipped). Raises :class:`LoregraphError` when one of them fails; those before it
    stay processed."""
    bundles = [b for b in [await pipeline.store.read_bundle(i) for i in document_ids] if b]
    pending = [pending_of(b) for b in bundles]
    pins = {
        b.document.id: Pins.of(
            b.merges, {m.entity_id for m in b.mentions} | {w.entity.id for w in b.entities}
        )
        for b in bundles
    }
    await pipeline.load_rules(scope, pins)
    report = IngestReport()
    for item, bundle in zip(pending, bundles, strict=True):
        # deleted first, so that nothing it held (a relation's fact) outlives it, as when
        # its file is deleted and ingested again; written back as it was if it fails
        await pipeline.store.delete_document(item.doc_id)
        await pipeline.process_batch([item], scope, report)
        if report.failed:
            await pipeline.store.write_document(bundle)
            failure = report.failed[0]
            raise LoregraphError(f"{failure.source}: {failure.error}")
    return report
