"""``python -m loregraph.cli``: the ``loregraph`` command."""

from loregraph.cli.app import main

main()
