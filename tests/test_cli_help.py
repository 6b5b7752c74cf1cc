"""Every CLI command documents itself."""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner

from loregraph.cli.app import main

COMMANDS = sorted(main.commands)


def test_expected_commands_exist() -> None:
    assert {
        "ingest",
        "ask",
        "context",
        "search",
        "entities",
        "entity",
        "stats",
        "export",
        "delete",
        "copy",
        "remember",
        "memories",
        "forget",
    } <= set(COMMANDS)


@pytest.mark.parametrize("name", COMMANDS)
def test_every_command_has_help(name: str) -> None:
    command = main.commands[name]
    assert command.help and command.help.strip(), f"{name} has no help text"
    result = CliRunner().invoke(main, [name, "--help"])
    assert result.exit_code == 0, result.output
    assert "Usage:" in result.output
    for param in command.params:
        if isinstance(param, click.Option) and param.name != "help":
            assert param.help, f"{name} --{param.name} has no help text"


def test_top_level_help_lists_commands() -> None:
    result = CliRunner().invoke(main, ["--help"])
    assert result.exit_code == 0
    for name in COMMANDS:
        assert name in result.output


def _helps() -> list[tuple[str, str]]:
    """The group's ``--help`` and every command's, with what produced them."""
    runner = CliRunner()
    pages = [("loregraph", runner.invoke(main, ["--help"]))]
    pages += [(name, runner.invoke(main, [name, "--help"])) for name in COMMANDS]
    for name, result in pages:
        assert result.exit_code == 0, (name, result.output)
    return [(name, result.output) for name, result in pages]


def test_no_help_text_mentions_seeds() -> None:
    """Users have no seeds: help describes behaviour, never the design's source systems."""
    for name, text in _helps():
        assert "seed" not in text.lower(), f"'seed' in the help of {name}"


def test_every_group_option_has_help() -> None:
    for param in main.params:
        if isinstance(param, click.Option) and param.name not in ("help", "version"):
            assert param.help and param.help.strip(), f"--{param.name} has no help text"


def test_no_message_of_the_command_line_mentions_seeds() -> None:
    """No string the command line can print (help, error or report) says 'seed'."""
    import ast
    from pathlib import Path

    import loregraph.cli

    folder = Path(loregraph.cli.__file__).parent
    for module in sorted(folder.glob("*.py")):
        for node in ast.walk(ast.parse(module.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                assert "seed" not in node.value.lower(), f"'seed' in {module.name}: {node.value!r}"
