"""Store test setup: assertion rewriting for the shared contract and builder modules."""

from __future__ import annotations

import pytest

pytest.register_assert_rewrite(f"{__package__}.contract", f"{__package__}.builders")
