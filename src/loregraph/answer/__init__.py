"""Answers: extractive offline, LLM-generated when a provider is configured."""
