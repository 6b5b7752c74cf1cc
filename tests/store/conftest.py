"""Store test setup: assertion rewriting for the shared (non-test) contract modules."""

from __future__ import annotations

import pytest

pytest.register_assert_rewrite(
    *(
        f"{__package__}.{name}"
        for name in (
            "builders",
            "scenarios",
            "contract",
            "contract_copy",
            "contract_documents",
            "contract_graph",
            "contract_memories",
            "contract_scores",
            "contract_search",
            "contract_visibility",
            "visibility_checks",
            "visibility_world",
        )
    )
)
