"""The command line's frame: global options anywhere, and one message instead of a traceback.

:class:`LoregraphGroup` lets the global options (``--db``, ``--scope``, ``--preset``,
``--llm-*``, ...) be written after the command as well as before it
(``loregraph ingest notes --scope work``), unless the command has an option of the same
name. Every error a command meets ends as one line on stderr and an exit code of its own:
loregraph's errors carry theirs, files that cannot be read or written exit 2 (input) or 8
(permission), and anything unexpected exits 70 with a request to report it
(``LOREGRAPH_DEBUG=1`` shows the traceback). A standard output its reader closed
(``loregraph ask ... | head -1``) ends the command quietly with 141, as the SIGPIPE signal
ends a Unix tool.
"""

from __future__ import annotations

import errno
import os
import select
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

import click

from loregraph import InputError, LoregraphError

PERMISSION_EXIT = 8
"""Exit code when a file or folder cannot be read or written for lack of permission."""
INTERNAL_EXIT = 70
"""Exit code of an unexpected error (a defect in loregraph)."""
INTERRUPTED_EXIT = 130
"""Exit code of a command interrupted (Ctrl-C): 128 + SIGINT."""
PIPE_CLOSED_EXIT = 141
"""Exit code when the reader of standard output closed it (``| head``): 128 + SIGPIPE, the
code a shell reports for a Unix tool the signal ended."""


def fail(message: str, code: int) -> NoReturn:
    """Print ``error: message`` on stderr and exit with ``code``."""
    click.echo(f"error: {message}", err=True)
    sys.exit(code)


def stdout_closed() -> bool:
    """Whether the reader of standard output has closed it (a pipe whose reader left);
    ``True`` where that cannot be asked."""
    try:
        poller = select.poll()
        poller.register(sys.stdout.fileno(), select.POLLOUT)
        events = poller.poll(0)
    except (AttributeError, OSError, ValueError):
        return True
    return any(event & (select.POLLERR | select.POLLHUP) for _, event in events)


def end_quietly() -> NoReturn:
    """Exit with :data:`PIPE_CLOSED_EXIT` and no message: nobody reads the output any more.
    Standard output is pointed at the null device first, so that Python's last flush of
    what is left in its buffer does not fail too."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    sys.exit(PIPE_CLOSED_EXIT)


def fail_on(exc: BaseException) -> NoReturn:
    """Turn any exception into one message and its exit code (a closed standard output:
    no message, :func:`end_quietly`)."""
    if isinstance(exc, BrokenPipeError) and stdout_closed():
        end_quietly()
    if isinstance(exc, LoregraphError):
        fail(str(exc), exc.exit_code)
    if isinstance(exc, PermissionError):
        where = f" {exc.filename}" if exc.filename else ""
        fail(f"permission denied:{where}; check who may read and write it", PERMISSION_EXIT)
    if isinstance(exc, OSError):
        where = f"{exc.filename}: " if exc.filename else ""
        reason = exc.strerror or str(exc)
        code = InputError.exit_code if exc.errno in _INPUT_ERRNOS else INTERNAL_EXIT
        fail(f"{where}{reason.lower()}", code)
    if os.environ.get("LOREGRAPH_DEBUG"):
        raise exc
    fail(
        f"unexpected {type(exc).__name__}: {exc}. This is a defect in loregraph; please report "
        "it with the command you ran (LOREGRAPH_DEBUG=1 shows the traceback).",
        INTERNAL_EXIT,
    )


_INPUT_ERRNOS = {errno.ENOENT, errno.ENOTDIR, errno.EISDIR, errno.ENAMETOOLONG, errno.EROFS}


class LoregraphGroup(click.Group):
    """A group whose options may follow the command, and whose commands never print a
    traceback."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        return super().parse_args(ctx, hoist_group_options(self, ctx, args))

    def invoke(self, ctx: click.Context) -> Any:
        try:
            done = super().invoke(ctx)
            sys.stdout.flush()  # a closed output fails here, not in Python's last flush
            return done
        except (click.exceptions.Exit, click.ClickException, click.Abort, SystemExit):
            raise
        except KeyboardInterrupt:
            click.echo("interrupted", err=True)
            sys.exit(INTERRUPTED_EXIT)
        except Exception as exc:
            fail_on(exc)


def _takes_value(param: click.Parameter) -> bool:
    return isinstance(param, click.Option) and not param.is_flag and not param.count


def _option_names(params: Sequence[click.Parameter]) -> dict[str, click.Parameter]:
    names: dict[str, click.Parameter] = {}
    for param in params:
        if isinstance(param, click.Option):
            for name in (*param.opts, *param.secondary_opts):
                names[name] = param
    return names


def hoist_group_options(group: click.Group, ctx: click.Context, args: list[str]) -> list[str]:
    """``args`` with the group's options that follow the command moved before it.

    An option the command defines itself stays where it is (``copy --scope``), as does one
    a subcommand of a command group defines (``keys create --scope``).
    """
    group_opts = _option_names(group.params)
    position = 0
    while position < len(args):  # find the command: the first token that is not an option
        token = args[position]
        if token == "--" or not token.startswith("-"):
            break
        name = token.split("=", 1)[0]
        param = group_opts.get(name)
        position += 2 if param is not None and _takes_value(param) and "=" not in token else 1
    if position >= len(args) or args[position] == "--":
        return args
    command = group.get_command(ctx, args[position])
    if command is None:
        return args
    own = _option_names(command.params)
    if isinstance(command, click.Group):  # a subcommand's own options stay with it too
        for sub in command.commands.values():
            own.update(_option_names(sub.params))
    before, after = list(args[: position + 1]), []
    rest = args[position + 1 :]
    index = 0
    while index < len(rest):
        token = rest[index]
        if token == "--":
            after.extend(rest[index:])
            break
        name = token.split("=", 1)[0]
        if name in own:
            width = 2 if _takes_value(own[name]) and "=" not in token else 1
            after.extend(rest[index : index + width])
            index += width
            continue
        param = group_opts.get(name)
        if param is not None and name not in ("--help", "-h", "--version"):
            width = 2 if _takes_value(param) and "=" not in token else 1
            before[position:position] = rest[index : index + width]
            position += width
            index += width
            continue
        after.append(token)
        index += 1
    return before + after
