"""Verilator builds of a DUT for the cocotb bench, cached by a hash of sources, defines and tools.

A build lives in <cache>/<top>-<hash16>/ and is reused by later runs; a lock
file serialises concurrent builders of the same key (pytest-xdist workers,
parallel CLI runs), and a build counts only once its `.complete` marker exists.
Cache root: $NVDLA_RTL_CACHE, else ~/.cache/nvdla-verif/rtl.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import re
import shlex
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import cocotb
import cocotb.config

from golden.errors import NvdlaVerifError

FIXTURE_DIR = Path(__file__).with_name("fixture")
FIXTURE_TOP = "nvdla_fixture"
# Verilator 5.006 (Debian bookworm) cannot schedule timing constructs for cocotb: --no-timing.
VERILATOR_ARGS = ("--no-timing", "-Wno-fatal", "-Wno-lint", "-Wno-style", "-O2")
BUG_SWITCHES = ("FX_BUG_ROUND_TO_ZERO", "FX_BUG_LINE_STRIDE", "FX_BUG_NO_SATURATION", "FX_BUG_SWAP_GROUP",
                "FX_BUG_LOST_INTR", "FX_BUG_WSTRB", "FX_BUG_ALU_SHIFT")


class BuildError(NvdlaVerifError):
    """The DUT cannot be built: Verilator missing, a bad file list, a failed compile."""


@dataclass(frozen=True)
class BuildOptions:
    """What to build: the fixture (default) or a user's Verilator file list and top module."""

    filelist: Path | None = None
    top: str | None = None
    defines: tuple[str, ...] = ()
    extra_args: tuple[str, ...] = ()
    cache_dir: Path | None = None
    jobs: int = field(default_factory=lambda: min(2, os.cpu_count() or 1))

    @classmethod
    def from_env(cls) -> BuildOptions:
        """$NVDLA_RTL_FILELIST, $NVDLA_RTL_TOP and $NVDLA_RTL_DEFINES (space separated); default the fixture."""
        filelist = os.environ.get("NVDLA_RTL_FILELIST")
        return cls(Path(filelist) if filelist else None, os.environ.get("NVDLA_RTL_TOP") or None,
                   tuple(os.environ.get("NVDLA_RTL_DEFINES", "").split()))

    def to_env(self) -> dict[str, str]:
        """The variables from_env reads back (worker processes inherit them); checks the top module."""
        if self.is_fixture:
            return {}
        return {"NVDLA_RTL_FILELIST": str(Path(self.filelist).resolve()), "NVDLA_RTL_TOP": self.toplevel,
                "NVDLA_RTL_DEFINES": " ".join(self.defines)}

    @property
    def is_fixture(self) -> bool:
        return self.filelist is None

    @property
    def toplevel(self) -> str:
        if self.filelist is not None and not self.top:
            raise BuildError("--rtl-filelist needs --rtl-top NAME (the NV_nvdla-like top module)")
        return self.top or FIXTURE_TOP


def fixture_sources() -> list[Path]:
    return sorted(FIXTURE_DIR.glob("*.v"))


def _filelist_tokens(filelist: Path) -> list[str]:
    """The arguments of a Verilator -f file: // and /* */ comments dropped, shell-style quoting."""
    try:
        text = filelist.read_text()
    except OSError as exc:
        raise BuildError(f"cannot read the RTL file list: {exc.strerror}", where=str(filelist)) from None
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.DOTALL)
    lines = [line.split("//", 1)[0] for line in text.splitlines()]
    try:
        return shlex.split("\n".join(lines), comments=True)
    except ValueError as exc:
        raise BuildError(f"cannot parse the RTL file list ({exc})", where=str(filelist)) from None


def _filelist_inputs(filelist: Path) -> list[Path]:
    """Every file a Verilator file list names (sources, -f/-v files, files under +incdir/-y dirs)."""
    found, base = [], filelist.parent
    for token in _filelist_tokens(filelist):
        for prefix in ("+incdir+", "-y", "-I", "-v", "-f"):
            if token.startswith(prefix) and token != prefix:
                token = token[len(prefix):]
        for part in token.split("+"):
            path = Path(os.path.expandvars(part))
            path = path if path.is_absolute() else base / path
            if path.is_file():
                found.append(path)
            elif path.is_dir():
                found.extend(p for p in sorted(path.iterdir()) if p.suffix in (".v", ".sv", ".vh", ".svh", ".vlib"))
    return found


def _tool_versions() -> str:
    verilator = shutil.which("verilator")
    if verilator is None:
        raise BuildError("verilator is not installed (bash ci/install_rtl_tools.sh)")
    out = subprocess.run([verilator, "--version"], capture_output=True, text=True, check=True).stdout
    return f"{out.strip()} cocotb {cocotb.__version__}"


def build_key(options: BuildOptions) -> str:
    digest = hashlib.sha256()
    inputs = fixture_sources() if options.is_fixture else [options.filelist, *_filelist_inputs(options.filelist)]
    for path in inputs:
        digest.update(str(path).encode() + b"\0" + path.read_bytes() + b"\0")
    for item in (options.toplevel, *sorted(options.defines), *options.extra_args, *VERILATOR_ARGS,
                 _tool_versions()):
        digest.update(item.encode() + b"\0")
    return f"{options.toplevel}-{digest.hexdigest()[:16]}"


def cache_root(options: BuildOptions) -> Path:
    root = options.cache_dir or os.environ.get("NVDLA_RTL_CACHE") or Path.home() / ".cache/nvdla-verif/rtl"
    return Path(root)


def verilator_command(options: BuildOptions, build_dir: Path) -> list[str]:
    share = Path(cocotb.__file__).parent / "share" / "lib" / "verilator" / "verilator.cpp"
    libs = cocotb.config.libs_dir
    sources = ([str(p) for p in fixture_sources()] if options.is_fixture
               else ["-f", str(Path(options.filelist).resolve())])
    defines = [f"-D{d}" for d in options.defines]
    return ["verilator", "-cc", "--exe", "-Mdir", str(build_dir), "-DCOCOTB_SIM=1",
            "--top-module", options.toplevel, "--vpi", "--public-flat-rw", "--prefix", "Vtop",
            "-o", options.toplevel, "-LDFLAGS", f"-Wl,-rpath,{libs} -L{libs} -lcocotbvpi_verilator",
            *VERILATOR_ARGS, *options.extra_args, *defines, str(share), *sources]


def build(options: BuildOptions = BuildOptions()) -> Path:
    """The directory of a finished build (building it first if needed); raises BuildError."""
    root = cache_root(options)
    root.mkdir(parents=True, exist_ok=True)
    key = build_key(options)
    build_dir = root / key
    with open(root / f"{key}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (build_dir / ".complete").exists():
            return build_dir
        shutil.rmtree(build_dir, ignore_errors=True)
        build_dir.mkdir(parents=True)
        log = build_dir / "build.log"
        commands = [verilator_command(options, build_dir),
                    ["make", "-j", str(options.jobs), "-C", str(build_dir), "-f", "Vtop.mk"]]
        with open(log, "w") as out:
            for command in commands:
                out.write("$ " + shlex.join(command) + "\n")
                out.flush()
                if subprocess.run(command, cwd=build_dir, stdout=out, stderr=subprocess.STDOUT).returncode:
                    tail = "".join(log.read_text().splitlines(keepends=True)[-30:])
                    raise BuildError(f"Verilator build of {options.toplevel} failed (log: {log}):\n{tail}")
        (build_dir / ".complete").write_text(key + "\n")
    return build_dir
