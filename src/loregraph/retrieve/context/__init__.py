"""The context an LLM is given: fitted to a token budget, written as Markdown, XML, JSON or
Mermaid, by category for a persona, and what is said when nothing is relevant."""
