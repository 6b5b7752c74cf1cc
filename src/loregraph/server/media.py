"""Request bodies in the media type their route reads: a route taking a JSON body takes
``application/json`` (or a ``+json`` type), the upload route a form. A body sent as another
type (``text/plain``, a form to a JSON route) is refused with 415 before it is read, rather
than read as something it is not and refused field by field."""

from __future__ import annotations

import email.message

from fastapi import Request, params

from loregraph.server.problems import Problem

JSON = "application/json"
FORMS = ("multipart/form-data", "application/x-www-form-urlencoded")


def _is_json(media_type: str) -> bool:
    main, _, sub = media_type.partition("/")
    return main == "application" and (sub == "json" or sub.endswith("+json"))


async def check_media_type(request: Request) -> None:
    """415 when the request's ``Content-Type`` is not what its route's body is read as
    (a request without one, or a route without a body, is left to the route)."""
    sent = request.headers.get("content-type")
    body_field = getattr(request.scope.get("route"), "body_field", None)
    if not sent or body_field is None:
        return
    message = email.message.Message()
    message["content-type"] = sent
    media_type = message.get_content_type()
    if isinstance(body_field.field_info, params.Form):
        if media_type not in FORMS:
            raise _unsupported(sent, " or ".join(FORMS))
    elif not _is_json(media_type):
        raise _unsupported(sent, JSON)


def _unsupported(sent: str, expected: str) -> Problem:
    return Problem(
        415,
        "unsupported-media-type",
        "Unsupported media type",
        f"this route reads a body of type {expected}, not {sent}",
    )
