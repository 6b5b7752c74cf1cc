"""Errors of the LLM layer, all :class:`~loregraph.errors.LoregraphError` subclasses.

Providers translate their SDK's exceptions into these, so the retry policy, the circuit
breaker and the ingest pipeline never look at a vendor's exception classes.
"""

from __future__ import annotations

from loregraph.errors import LoregraphError


class LLMError(LoregraphError, exit_code=8):
    """A language-model call that did not give a usable answer."""


class LLMTransientError(LLMError):
    """A failure worth retrying: rate limit (429), overload, 5xx, timeout, connection.

    ``retry_after`` is the server's ``Retry-After`` in seconds when it sent one.
    """

    def __init__(
        self, message: str, *, status: int | None = None, retry_after: float | None = None
    ) -> None:
        super().__init__(message)
        self.status = status
        self.retry_after = retry_after

    @property
    def rate_limited(self) -> bool:
        """True for a 429 (rate limits are waited out; they do not trip the breaker)."""
        return self.status == 429


class LLMTimeoutError(LLMTransientError):
    """A call that took longer than its timeout."""


class LLMPermanentError(LLMError):
    """A failure that retrying will not fix: bad request, authentication, unknown model."""

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class CircuitOpenError(LLMError):
    """The circuit breaker is open: recent calls kept failing, so none is attempted."""


class LLMOutputError(LLMError):
    """The model's reply could not be used, even after one corrective retry."""


TRANSIENT_STATUSES = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 529})


def retry_after_seconds(headers: object) -> float | None:
    """The ``Retry-After`` (or ``retry-after-ms``) of a response's headers, in seconds.

    Accepts any mapping-like object with ``get``; an HTTP-date value is converted to a
    delay from now. Returns ``None`` when the header is absent or unreadable.
    """
    getter = getattr(headers, "get", None)
    if getter is None:
        return None
    raw_ms = getter("retry-after-ms")
    if raw_ms:
        try:
            return max(0.0, float(raw_ms) / 1000.0)
        except (TypeError, ValueError):
            pass
    raw = getter("retry-after")
    if not raw:
        return None
    try:
        return max(0.0, float(raw))
    except (TypeError, ValueError):
        pass
    from datetime import UTC, datetime
    from email.utils import parsedate_to_datetime

    try:
        when = parsedate_to_datetime(str(raw))
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - datetime.now(UTC)).total_seconds())


def error_for_status(status: int, message: str, headers: object = None) -> LLMError:
    """The :class:`LLMError` for an HTTP error status (transient ones carry Retry-After)."""
    text = f"the LLM server answered {status}: {message}".strip()
    if status in TRANSIENT_STATUSES or status >= 500:
        return LLMTransientError(text, status=status, retry_after=retry_after_seconds(headers))
    return LLMPermanentError(text, status=status)


class LLMExtractionError(LLMError):
    """A document whose LLM extraction failed; nothing of it is written, and the next run
    tries it again (its successful calls are cached, so only the failed ones are repeated)."""
