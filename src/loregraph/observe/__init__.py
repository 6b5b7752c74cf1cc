"""What loregraph reports about its work: retrievals and ingests, to observers.

An :class:`Observer` hears about every retrieval (its :class:`~loregraph.retrieve.results.result.
RetrievalResult`, whose trace says what each stage did and how long it took) and every
ingest (its :class:`~loregraph.ingest.report.IngestReport` and when it ran). The engine
calls the observers it was given and nothing else; :mod:`loregraph.observe.metrics` turns
what they hear into Prometheus metrics and :mod:`loregraph.observe.spans` into
OpenTelemetry spans, each only when its library is installed. Observing costs nothing when
no observer is given. :func:`debug_report` says how one retrieval found its sources.
"""

from loregraph.observe.base import Observer, Observers, observed
from loregraph.observe.debug import circuit_state, debug_report

__all__ = ["Observer", "Observers", "circuit_state", "debug_report", "observed"]
