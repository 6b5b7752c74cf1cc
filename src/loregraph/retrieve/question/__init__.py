"""Reading the question: its analysis (offline or by a model), the sentences of a passage it
asks about, whether the passages found are relevant to it, and which intent and persona
route it takes."""
