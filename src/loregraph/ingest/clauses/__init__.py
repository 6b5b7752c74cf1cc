"""A sentence's clauses read as claims from its parse: who does what to whom, when, and which
claims change or restate others."""
