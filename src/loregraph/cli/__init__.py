"""The ``loregraph`` command line (:func:`loregraph.cli.app.main`).

``app`` holds the command group and its global options; the commands live by area
(``ingest``, ``query``: search/context/ask, ``browse``: entities/entity/documents/stats/
scopes, ``admin``: delete/export/copy); ``options`` declares each shared option once;
``runner`` opens the graph and turns errors into exit codes; ``support`` lets global options
follow the command; ``progress`` draws progress on stderr.
"""
