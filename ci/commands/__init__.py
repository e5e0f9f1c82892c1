"""Subcommands of `nvdla-verif`: one module each, exposing NAME, HELP, add_arguments(parser), run(args)."""
