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
