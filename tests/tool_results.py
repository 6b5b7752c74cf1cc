"""What the MCP tests read from a tool call: its structured result, checked to be one."""

from __future__ import annotations

from typing import Any


def structured(result: Any) -> dict[str, Any]:
    """The structured content of a successful tool call (fails the test on a tool error)."""
    assert not result.is_error, result.content
    assert isinstance(result.structured_content, dict)
    return result.structured_content
