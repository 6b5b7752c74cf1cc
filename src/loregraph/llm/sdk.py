"""What the providers built on a vendor SDK (``openai``, ``anthropic``) share.

The SDK is imported only when a provider is constructed, with the install command when it
is missing; its client is built with a placeholder key when none is given (the environment
is never read); its exceptions become :mod:`~loregraph.llm.errors` types, so nothing above
the providers looks at a vendor's exception classes.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

from loregraph.errors import DependencyError
from loregraph.llm.base import TokenUsage
from loregraph.llm.errors import LLMError, LLMTimeoutError, LLMTransientError, error_for_status

PLACEHOLDER_KEY = "not-needed"
"""Sent when no API key is given (local servers ignore it; the SDKs insist on one)."""


def import_sdk(package: str, provider: str) -> Any:
    """The SDK module ``package``; :class:`DependencyError` naming ``provider`` if missing."""
    try:
        return importlib.import_module(package)
    except ImportError:
        raise DependencyError(
            f"{provider} needs the {package} package: pip install 'loregraph[llm]'"
        ) from None


def sdk_client(
    factory: Callable[..., Any],
    *,
    api_key: str | None,
    base_url: str | None,
    timeout: float,
    headers: Mapping[str, str] | None,
    max_retries: int = 0,
) -> Any:
    """An SDK client (``factory`` is its class) with loregraph's settings: the SDK retries
    ``max_retries`` times (0: retries live in :class:`~loregraph.llm.resilience.Resilience`)."""
    return factory(
        api_key=api_key or PLACEHOLDER_KEY,
        base_url=base_url,
        timeout=timeout,
        max_retries=max_retries,
        default_headers=dict(headers or {}),
    )


def body_message(exc: BaseException) -> str:
    """The message of an SDK exception's JSON error body when it has one, else ``str(exc)``."""
    body = getattr(exc, "body", None)
    if isinstance(body, Mapping):
        inner = body.get("error", body)
        if isinstance(inner, Mapping) and inner.get("message"):
            return str(inner["message"])
        if isinstance(inner, str):
            return inner
    return str(exc)


def translate_error(
    exc: BaseException, sdk: Any, message: Callable[[BaseException], str] = str
) -> LLMError:
    """An SDK exception as an :class:`LLMError` (transient or permanent); ``message`` reads
    the text of an HTTP error status."""
    if isinstance(exc, sdk.APITimeoutError):
        return LLMTimeoutError(f"the LLM call timed out: {exc}")
    if isinstance(exc, sdk.APIStatusError):
        response = getattr(exc, "response", None)
        headers = getattr(response, "headers", None)
        return error_for_status(int(exc.status_code), message(exc), headers)
    if isinstance(exc, sdk.APIConnectionError):
        return LLMTransientError(f"could not reach the LLM server: {exc}")
    return LLMError(f"the LLM call failed: {exc.__class__.__name__}: {exc}")


def token_usage(raw: Any, prompt: str, completion: str) -> TokenUsage:
    """The token counts of an SDK usage object, read from its ``prompt`` and ``completion``
    attributes (0 where the server sent none)."""
    return TokenUsage(int(getattr(raw, prompt, 0) or 0), int(getattr(raw, completion, 0) or 0))
