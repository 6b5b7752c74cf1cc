"""Personas: a library of system prompts with traversal settings, and retrieval through a
persona's lens."""
