"""Processing stored documents again, as ingest would, after a merge decision changed.

A document's text is rebuilt from its stored chunks and the blank runs between them, which
the store keeps with the document (:mod:`loregraph.ingest.chunk.blanks`; checked against the
document's content hash, so the text is exactly the one ingested), then it goes through the
pipeline again: extract → cluster → select → resolve → relate → write, replacing the stored
document in one transaction. Resolution honours the scope's decisions
and, for every other name of the document, the links it had before
(:class:`~loregraph.ingest.resolve.decisions.Pins`): only what a decision changed moves.
"""

from __future__ import annotations

from collections.abc import Sequence

from loregraph.errors import LoregraphError
from loregraph.ingest.chunk.blanks import rebuild_text
from loregraph.ingest.pipeline import IngestPipeline, Pending
from loregraph.ingest.report import IngestReport
from loregraph.ingest.resolve.decisions import Pins
from loregraph.ingest.types import SourceDocument, TextChunk
from loregraph.models import DocumentBundle


def pending_of(bundle: DocumentBundle) -> Pending:
    """A stored document as the pipeline's work item: its text rebuilt from its chunks
    and blank runs (:func:`~loregraph.ingest.chunk.blanks.rebuild_text`), its chunks as they
    are, replacing it when written."""
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
