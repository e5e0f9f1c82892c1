"""`nvdla-verif`: the command-line entry point.

Subcommands live in ci/commands/, one module each with NAME, HELP,
add_arguments(parser) and run(args) -> exit code; they are found
automatically. Errors of the project's own family print one line and exit 2; any other exception
prints one line naming it and exits 3 (`--debug` prints the traceback instead). `--memory-limit SIZE`
raises the golden model's memory limit (golden/limits.py) for the command and its worker processes.
"""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import shutil
import signal
import sys
import traceback
from pathlib import Path

import ci.commands
from golden import __version__, limits
from golden.errors import NvdlaVerifError


def _commands():
    for info in sorted(pkgutil.iter_modules(ci.commands.__path__), key=lambda i: i.name):
        module = importlib.import_module(f"ci.commands.{info.name}")
        if hasattr(module, "NAME") and hasattr(module, "run"):
            yield module


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="nvdla-verif",
        description="Golden-model verification and conformance for NVIDIA's NVDLA.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    _global_options(parser, None)
    anywhere = argparse.ArgumentParser(add_help=False)
    _global_options(anywhere, argparse.SUPPRESS)  # after the command too, without resetting what came before
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in _commands():
        command = sub.add_parser(module.NAME, help=module.HELP, description=module.HELP, parents=[anywhere])
        module.add_arguments(command)
        command.set_defaults(handler=module.run)
    return parser


def _global_options(parser: argparse.ArgumentParser, default) -> None:
    parser.add_argument("--debug", action="store_true", default=default if default else False,
                        help="print the Python traceback of an error")
    parser.add_argument("--memory-limit", metavar="SIZE", type=_size, default=default,
                        help="most bytes one access, surface or memory image of the golden model may use "
                             f"(default {limits.DEFAULT_MEMORY_LIMIT >> 30}GiB; e.g. 16GiB)")


def invocation() -> list[str]:
    """How to start nvdla-verif again from any folder, as the first words of a command (ci/shell.py quotes them):
    the bare name when it is the one on PATH, else the absolute path of the script that was started, else this
    interpreter running the module."""
    started = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    if started is not None and started.name == "nvdla-verif" and started.is_file():
        found = shutil.which("nvdla-verif")
        if found and Path(found).resolve() == started.resolve():
            return ["nvdla-verif"]
        return [str(started.absolute())]
    return [sys.executable, "-m", "ci.cli"]


def _size(text: str) -> int:
    try:
        return limits.parse_size(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "handler", None):
        parser.print_help()
        return 2
    if args.memory_limit:
        limits.set_memory_limit(args.memory_limit)
        os.environ[limits.ENVIRONMENT] = str(args.memory_limit)
    previous = signal.signal(signal.SIGTERM, _terminate)  # a scheduler's SIGTERM stops a run as Ctrl-C does
    try:
        return int(args.handler(args) or 0)
    except NvdlaVerifError as exc:
        return _fail(args, exc, f"error: {exc}", 2)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader went away (`nvdla-verif rules | head`): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except Exception as exc:  # never a traceback for user input; --debug shows it
        return _fail(args, exc, f"internal error: {type(exc).__name__}: {_first_line(exc)}", 3)
    finally:
        signal.signal(signal.SIGTERM, previous)


def _terminate(signum, frame):
    raise KeyboardInterrupt


def _fail(args, exc: BaseException, message: str, code: int) -> int:
    if args.debug:
        traceback.print_exception(exc)
    else:
        hint = " (--debug shows the traceback)" if code == 3 else ""
        print(f"nvdla-verif {args.command}: {message}{hint}", file=sys.stderr)
    return code


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    line = text.splitlines()[0] if text else ""
    return line[:300]


if __name__ == "__main__":
    sys.exit(main())
