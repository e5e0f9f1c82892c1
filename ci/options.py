"""Options shared by the commands that play traces (conform, play, regress): profile, implementations and the
RTL under test."""

from __future__ import annotations

import argparse
import os
from dataclasses import replace
from pathlib import Path

import ci.implementations as registry
from ci.shell import option
from golden import limits
from golden.config import Profile, get_profile, infer_profile_name, load_spec
from golden.errors import NvdlaVerifError, ProfileError
from golden.implementation import Implementation
from golden.settings import RtlSettings, Settings

#: The reference an implementation's outcome is compared with when --ref is not given (reference_spec).
DEFAULT_REFERENCE = "golden"
#: How every command's --ref help says the default.
REF_DEFAULT_HELP = f"default: {DEFAULT_REFERENCE}, none when --impl is {DEFAULT_REFERENCE}"


def add_profile_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--profile", help="hardware profile for every trace (default: from the folder names)")
    group.add_argument("--profile-spec", metavar="FILE", help="a .spec file defining the profile")


def add_data_root_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data-root", metavar="DIR",
                        help="let traces read data files inside DIR too (named relative to the trace's folder, "
                        "e.g. ../../shared/x.dat); without it a trace reads only files inside its own folder")


def fixed_profile(args: argparse.Namespace) -> Profile | None:
    """The profile the options name for every trace, or None to infer it per trace."""
    if args.profile_spec:
        return load_spec(args.profile_spec)
    return get_profile(args.profile) if args.profile else None


class ProfileNotInferredError(ProfileError):
    """A trace whose profile no option gives and no folder name says."""


def profile_for(path: Path, fixed: Profile | None, default: str | None = None) -> Profile:
    """A trace's hardware profile: the one the options fix for every trace, else `default` (the one a test names),
    else the one its folder names."""
    if fixed is not None:
        return fixed
    name = default or infer_profile_name(path)
    if name is None:
        raise ProfileNotInferredError(f"{path}: cannot infer the hardware profile from the folder names; use "
                                      "--profile")
    return get_profile(name)


def add_implementation_options(parser: argparse.ArgumentParser) -> None:
    registered = ", ".join(registry.names())
    parser.add_argument("--impl", default="golden", metavar="NAME[:ARG]",
                        help=f"the implementation to play the traces on (registered: {registered}; "
                             "default: golden); e.g. --impl 'command:./my_model --fast'")
    parser.add_argument("--ref", metavar="NAME[:ARG]",
                        help=f"the reference its outcome is compared with through the scoreboards "
                             f"({REF_DEFAULT_HELP}); 'none': judge by the trace's own checks only "
                             "(e.g. a layer the golden model rejects)")
    add_rtl_options(parser)


def add_rtl_options(parser: argparse.ArgumentParser) -> None:
    rtl = parser.add_argument_group("RTL under test (--impl rtl; default: the project's fixture DUT)")
    rtl.add_argument("--rtl-filelist", metavar="FILE",
                     help="a Verilator-ready file list of your NVDLA RTL (e.g. your nvdla/hw nv_small build)")
    rtl.add_argument("--rtl-top", metavar="NAME", help="the top module of --rtl-filelist (NV_nvdla-like ports)")
    rtl.add_argument("--rtl-define", action="append", default=[], metavar="D",
                     help="a Verilator define for --rtl-filelist, e.g. EMULATION (repeatable)")
    declared = rtl.add_mutually_exclusive_group()
    declared.add_argument("--rtl-profile", metavar="NAME",
                          help="the hardware profile the RTL was built as (e.g. nv_small): tests made for a "
                               "profile it lacks something of are `not applicable`, generated tests draw for it")
    declared.add_argument("--rtl-spec", metavar="FILE",
                          help="the nvdla/hw .spec file of the configuration the RTL was built from (instead of "
                               "--rtl-profile)")


def implementations(args: argparse.Namespace, settings: Settings) -> tuple[Implementation, Implementation | None]:
    """(implementation, reference) the options name; created once so that bad values fail before anything runs."""
    return resolve(args.impl, args.ref, settings)


def default_reference(impl: str) -> str | None:
    """The reference when --ref is not given: the golden model, none for the golden model itself."""
    return DEFAULT_REFERENCE if impl.partition(":")[0] != DEFAULT_REFERENCE else None


def reference_spec(impl: str, ref: str | None) -> str | None:
    """The reference --impl and --ref mean: --ref, else the default; none when it would be the implementation
    itself or when --ref is 'none'."""
    if ref == "none":
        return None
    ref = ref or default_reference(impl)
    return ref if ref and ref != impl else None


def resolve(impl: str, ref: str | None, settings: Settings | None = None
            ) -> tuple[Implementation, Implementation | None]:
    """(implementation, reference) for --impl and --ref (reference_spec), each created with the settings and
    prepared once (golden/implementation.py)."""
    spec = reference_spec(impl, ref)
    return (prepared(registry.create(impl, settings)),
            prepared(registry.create(spec, settings)) if spec else None)


def prepared(implementation: Implementation) -> Implementation:
    prepare = getattr(implementation, "prepare", None)
    if prepare is not None:
        prepare()
    return implementation


def rtl_profile(args: argparse.Namespace) -> str | None:
    """The RTL's declared profile as --rtl-profile names it or the absolute path of --rtl-spec (checked)."""
    if args.rtl_spec:
        load_spec(args.rtl_spec)  # a spec that cannot be read is one error now
        return str(Path(args.rtl_spec).resolve())
    return get_profile(args.rtl_profile).name if args.rtl_profile else None


def settings_from(args: argparse.Namespace) -> Settings:
    """What the options decide (golden/settings.py), over the person's overrides; checked, so that a bad value is
    one error before anything runs. Handed to the implementations, and by regress to its workers."""
    overrides = Settings.from_environment()
    return Settings(rtl_settings(args, overrides.rtl), overrides.command, limits.memory_limit())


def rtl_settings(args: argparse.Namespace, overrides: RtlSettings) -> RtlSettings:
    """The RTL selection the --rtl-* options name (the file list, its top and defines, the declared profile)."""
    if (args.rtl_top or args.rtl_define) and not args.rtl_filelist:
        raise NvdlaVerifError("--rtl-top and --rtl-define need --rtl-filelist FILE")
    declared = rtl_profile(args)
    if not args.rtl_filelist and not declared:
        return overrides
    if not args.impl.startswith("rtl") and not (args.ref or "").startswith("rtl"):
        option = "--rtl-filelist" if args.rtl_filelist else "--rtl-profile/--rtl-spec"
        raise NvdlaVerifError(f"{option} needs --impl rtl")
    chosen = replace(overrides, profile=declared) if declared else overrides
    if not args.rtl_filelist:
        return chosen
    if not Path(args.rtl_filelist).is_file():
        raise NvdlaVerifError(f"{args.rtl_filelist}: RTL file list not found")
    if not args.rtl_top:
        raise NvdlaVerifError("--rtl-filelist needs --rtl-top NAME (the NV_nvdla-like top module)")
    return replace(chosen, filelist=str(Path(args.rtl_filelist).resolve()), top=args.rtl_top,
                   defines=tuple(args.rtl_define))


def rtl_arguments(args: argparse.Namespace) -> list[str]:
    """The RTL selection as command-line arguments that work from any folder (for reproduce commands)."""
    words = ["--rtl-filelist", str(Path(args.rtl_filelist).resolve())] if args.rtl_filelist else []
    words += option("--rtl-top", args.rtl_top) if args.rtl_top else []
    for define in args.rtl_define:
        words += option("--rtl-define", define)
    words += ["--rtl-spec", str(Path(args.rtl_spec).resolve())] if args.rtl_spec else []
    return words + (option("--rtl-profile", args.rtl_profile) if args.rtl_profile else [])


def positive(text: str) -> int:
    """An argparse type: a whole number of at least 1."""
    return _at_least(text, 1)


def count(text: str) -> int:
    """An argparse type: a whole number of at least 0."""
    return _at_least(text, 0)


def _at_least(text: str, low: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < low:
        raise argparse.ArgumentTypeError(f"{value} is less than {low}")
    return value


def workers(requested: int) -> int:
    """-j N capped at the machine's CPUs, saying so."""
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    if requested > cpus:
        print(f"-j {requested}: this machine has {cpus} CPUs; running {cpus} in parallel", flush=True)
        return cpus
    return requested


def families_for(profile: Profile, requested: list[str] | None) -> list[str]:
    """The stimulus families asked for (default: all the profile has); one the profile lacks is an error."""
    from stimulus.families import available

    have = available(profile)
    lacking = [family for family in requested or () if family not in have]
    if lacking:
        raise ProfileError(f"profile {profile.name} has no {', '.join(lacking)} (its families: {', '.join(have)})")
    return list(requested or have)
