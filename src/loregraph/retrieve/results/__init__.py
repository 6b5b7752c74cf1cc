"""What a retrieval gives back and the words it is described in: the result and its trace,
where each passage came from, sections, query terms, and the categories and intents a
question is routed by."""
