"""Source code as a graph: files, modules, classes, functions, libraries and settings, and
the relations between them, parsed with tree-sitter (the ``code`` extra)."""
