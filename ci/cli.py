"""`nvdla-verif`: the command-line entry point.

Subcommands live in ci/commands/, one module each with NAME, HELP,
add_arguments(parser) and run(args) -> exit code; they are found
automatically. Errors of the project's own family print one line and exit 2; so do running out of memory
(MemoryError: the memory limits in force) and of disk space (ENOSPC, EDQUOT: the path, and what the command
keeps and how it continues: the command module's optional `continues(args)`); any other exception prints one
line naming it and exits 3 (`--debug` prints the traceback instead). `--memory-limit SIZE` raises the golden
model's memory limit (golden/limits.py) for the command and, through its settings, its worker processes. SIGINT
and SIGTERM stop a command as Ctrl-C does, whatever dispositions it inherited (ci/signals.py).
"""

from __future__ import annotations

import argparse
import errno
import importlib
import os
import pkgutil
import shutil
import sys
import traceback
from pathlib import Path

import ci.commands
from ci import signals
from golden import __version__, limits
from golden.errors import DiskFullError, NvdlaVerifError


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
                        help="most bytes one access, surface, memory image or layer's working set of the golden "
                             f"model may use (default {limits.DEFAULT_MEMORY_LIMIT >> 30}GiB; e.g. 16GiB; an SDP "
                             "layer needs about 30 bytes per element)")


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
    if args.memory_limit:  # worker processes get it in the settings (golden/settings.py Settings.memory_limit)
        limits.set_memory_limit(args.memory_limit)
    restore = signals.install()  # a scheduler's SIGTERM, or Ctrl-C to a job started with `&`, stops a run
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
    except MemoryError as exc:
        return _fail(args, exc, f"error: {limits.memory_exhausted(exc)}", 2)
    except OSError as exc:
        if exc.errno not in DiskFullError.ERRNOS:
            return _fail(args, exc, f"internal error: {type(exc).__name__}: {_first_line(exc)}", 3)
        return _fail(args, exc, f"error: {disk_full(exc, args)}", 2)
    except Exception as exc:  # never a traceback for user input; --debug shows it
        return _fail(args, exc, f"internal error: {type(exc).__name__}: {_first_line(exc)}", 3)
    finally:
        restore()


def disk_full(exc: OSError, args) -> DiskFullError:
    """A full disk as one error: the path being written, and what the command keeps and how it continues."""
    path = next((p for p in (exc.filename2, exc.filename) if isinstance(p, str)), None)  # a copy's: (source, target)
    command = sys.modules[args.handler.__module__]
    kept = getattr(command, "continues", None)
    after = kept(args) if kept is not None else None
    what = "disk quota exceeded" if exc.errno == errno.EDQUOT else "no space left on the device"
    return DiskFullError(f"{what}{f' while writing {path}' if path else ''}; "
                         + (after or "free some space and run the command again"), path=path)


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
