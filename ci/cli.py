"""`nvdla-verif`: the command-line entry point.

Subcommands live in ci/commands/, one module each with NAME, HELP,
add_arguments(parser) and run(args) -> exit code; they are found
automatically. Errors of the project's own family print one line and exit 2.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys

import ci.commands
from golden import __version__
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
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in _commands():
        command = sub.add_parser(module.NAME, help=module.HELP, description=module.HELP)
        module.add_arguments(command)
        command.set_defaults(handler=module.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "handler", None):
        parser.print_help()
        return 2
    try:
        return int(args.handler(args) or 0)
    except NvdlaVerifError as exc:
        print(f"nvdla-verif {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
