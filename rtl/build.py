"""Verilator builds of a DUT for the cocotb bench, cached by a hash of sources, defines and tools.

A build lives in <cache>/<top>-<hash16>/ and is reused by later runs; a lock
file serialises concurrent builders of the same key (pytest-xdist workers,
parallel CLI runs), and a build counts only once its `.complete` marker exists.
Cache root: the settings' (golden/settings.py RtlSettings.cache, $NVDLA_RTL_CACHE), else ~/.cache/nvdla-verif/rtl.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import cocotb
import cocotb_tools.config

from golden.errors import NvdlaVerifError
from golden.settings import RtlSettings, override
from rtl.toolchain import ToolchainError, ccache, find_verilator, missing_build_tools

FIXTURE_DIR = Path(__file__).with_name("fixture")
FIXTURE_TOP = "nvdla_fixture"
# The bench drives no timing constructs (cocotb's clock is C++, delays in the RTL are not needed), and
# --no-timing keeps the C++ at the compiler's default standard (--timing needs coroutines: -std=gnu++20).
VERILATOR_ARGS = ("--no-timing", "-Wno-fatal", "-Wno-lint", "-Wno-style", "-O3")
#: Verilator's code coverage, built in when the RTL settings name a folder for the runs' .dat files (a
#: separate cached build: the arguments are part of the key).
COVERAGE_ARGS = ("--coverage-line", "--coverage-toggle")
BUG_SWITCHES = ("FX_BUG_ROUND_TO_ZERO", "FX_BUG_LINE_STRIDE", "FX_BUG_NO_SATURATION", "FX_BUG_SWAP_GROUP",
                "FX_BUG_LOST_INTR", "FX_BUG_WSTRB", "FX_BUG_ALU_SHIFT", "FX_BUG_CSB_HANDSHAKE", "FX_BUG_STRAY_WRITE",
                "FX_BUG_TIE_POS_TO_ZERO")


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
    jobs: int = field(default_factory=lambda: os.cpu_count() or 1)

    @classmethod
    def from_settings(cls, rtl: RtlSettings) -> BuildOptions:
        """The build the RTL settings name (golden/settings.py): the fixture unless a file list is given; with a
        coverage folder, a build with line and toggle coverage."""
        return cls(Path(rtl.filelist) if rtl.filelist else None, rtl.top, tuple(rtl.defines),
                   COVERAGE_ARGS if rtl.coverage else (), Path(rtl.cache) if rtl.cache else None)

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
    """What builds the model, in the cache key and the build's toolchain.txt."""
    missing = missing_build_tools()
    if missing:
        raise BuildError(f"a Verilator build needs {', '.join(missing)} (Debian: apt-get install g++ make perl)")
    try:
        verilator = find_verilator()
    except ToolchainError as exc:
        raise BuildError(exc.message) from None
    return f"{verilator.identity()} cocotb {cocotb.__version__}"


def build_key(options: BuildOptions) -> str:
    digest = hashlib.sha256()
    inputs = fixture_sources() if options.is_fixture else [options.filelist, *_filelist_inputs(options.filelist)]
    for path in inputs:
        digest.update(str(path).encode() + b"\0" + path.read_bytes() + b"\0")
    for item in (options.toplevel, *sorted(options.defines), *options.extra_args, *VERILATOR_ARGS,
                 PUBLIC_CONFIG, _tool_versions()):
        digest.update(item.encode() + b"\0")
    return f"{options.toplevel}-{digest.hexdigest()[:16]}"


def cache_root(options: BuildOptions) -> Path:
    root = options.cache_dir or override("NVDLA_RTL_CACHE") or Path.home() / ".cache/nvdla-verif/rtl"
    return Path(root)


# Only the top-level ports the bench touches are visible to VPI (rtl/bench/env.py: clocks, resets, tie-offs,
# CSB, the AXI ports, dla_intr); --public-flat-rw on every signal of a full NVDLA makes Vtop__Syms files of
# megabytes and stops Verilator from optimising the signals away.
PUBLIC_SIGNALS = ("dla_*", "direct_reset_", "global_clk_ovr_on", "tmc2slcg_disable_clock_gating", "test_mode",
                  "csb2nvdla_*", "nvdla2csb_*", "nvdla_core2dbb_*", "nvdla_core2cvsram_*", "nvdla_pwrbus_ram_*")
PUBLIC_CONFIG = "`verilator_config\n" + "".join(f'public_flat_rw -module "{{top}}" -var "{name}"\n'
                                                 for name in PUBLIC_SIGNALS)


def verilator_command(options: BuildOptions, build_dir: Path) -> list[str]:
    share = cocotb_tools.config.share_dir / "lib" / "verilator" / "verilator.cpp"
    libs = cocotb_tools.config.libs_dir
    public = build_dir / "public.vlt"
    public.write_text(PUBLIC_CONFIG.format(top=options.toplevel))
    # -F: paths inside the list are relative to the list's folder, as build_key reads them
    sources = ([str(p) for p in fixture_sources()] if options.is_fixture
               else ["-F", str(Path(options.filelist).resolve())])
    defines = [f"-D{d}" for d in options.defines]
    return [str(find_verilator().binary), "-cc", "--exe", "-Mdir", str(build_dir), "-DCOCOTB_SIM=1",
            "--top-module", options.toplevel, "--vpi", "--prefix", "Vtop", "--verilate-jobs", str(options.jobs),
            "-o", options.toplevel, "-LDFLAGS", f"-Wl,-rpath,{libs} -L{libs} -lcocotbvpi_verilator",
            *VERILATOR_ARGS, *options.extra_args, *defines, str(public), str(share), *sources]


def make_command(options: BuildOptions, build_dir: Path) -> list[str]:
    command = ["make", "-j", str(options.jobs), "-C", str(build_dir), "-f", "Vtop.mk", "VM_PARALLEL_BUILDS=1",
               f"PYTHON3={sys.executable}", *find_verilator().make_vars()]
    objcache = ccache()
    return command + ([f"OBJCACHE={objcache}"] if objcache else [])


def _stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _run_logged(command: list[str], build_dir: Path, out, env: dict[str, str], on_line=None) -> int:
    out.write("$ " + shlex.join(command) + "\n")
    out.flush()
    with subprocess.Popen(command, cwd=build_dir, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          env=env, errors="replace") as proc:
        for line in proc.stdout:
            out.write(line)
            if on_line is not None:
                on_line(line)
        out.flush()
        return proc.wait()


class _CompileProgress:
    """A line per quarter of the C++ files compiled (or every 30 s), from make's compiler command lines."""

    def __init__(self, total: int, progress: Callable[[str], None]):
        self.total, self.progress, self.done = max(total, 1), progress, 0
        self.started = self.last = time.perf_counter()
        self.reported = 0

    @staticmethod
    def is_compile(line: str) -> bool:
        return " -c " in line and ".cpp" in line

    def __call__(self, line: str) -> None:
        if not self.is_compile(line):
            return
        self.done += 1
        now = time.perf_counter()
        quarter = 4 * self.done // self.total
        if quarter > self.reported or now - self.last >= 30:
            self.reported, self.last = quarter, now
            self.progress(f"rtl build: C++ {min(self.done, self.total)}/{self.total} files compiled "
                          f"({now - self.started:.0f} s)")


def build(options: BuildOptions = BuildOptions(), progress: Callable[[str], None] | None = _stderr) -> Path:
    """The directory of a finished build (building it first if needed); raises BuildError.

    progress receives a line when Verilator starts, as the C++ compiles, and the total time
    (None: silent); the full output goes to <build>/build.log either way.
    """
    say = progress or (lambda line: None)
    root = cache_root(options)
    root.mkdir(parents=True, exist_ok=True)
    key = build_key(options)
    build_dir = root / key
    with open(root / f"{key}.lock", "w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            say(f"rtl build: waiting for another process building {build_dir}")
            fcntl.flock(lock, fcntl.LOCK_EX)
        if (build_dir / ".complete").exists():
            return build_dir
        shutil.rmtree(build_dir, ignore_errors=True)
        build_dir.mkdir(parents=True)
        _build_locked(options, build_dir, say)
        (build_dir / ".complete").write_text(key + "\n")
    return build_dir


def _build_locked(options: BuildOptions, build_dir: Path, say: Callable[[str], None]) -> None:
    verilator = find_verilator()
    (build_dir / "toolchain.txt").write_text(f"{verilator.describe()}\ncocotb {cocotb.__version__}\n"
                                             f"ccache {ccache() or 'not used'}\n")
    log, env, started = build_dir / "build.log", verilator.env(), time.perf_counter()
    what = "the fixture" if options.is_fixture else str(options.filelist)
    say(f"rtl build: verilating {options.toplevel} from {what} with {verilator.describe()} "
        f"(log: {log})")
    with open(log, "w") as out:
        if _run_logged(verilator_command(options, build_dir), build_dir, out, env):
            _failed(options, log)
        make = make_command(options, build_dir)
        planned = subprocess.run([*make, "-n"], cwd=build_dir, capture_output=True, text=True, env=env).stdout
        cpp_files = sum(_CompileProgress.is_compile(line) for line in planned.splitlines())
        say(f"rtl build: verilated in {time.perf_counter() - started:.0f} s; compiling {cpp_files} C++ files "
            f"with make -j {options.jobs}{' and ccache' if ccache() else ''}")
        if _run_logged(make, build_dir, out, env, _CompileProgress(cpp_files, say)):
            _failed(options, log)
    say(f"rtl build: {options.toplevel} built in {time.perf_counter() - started:.0f} s ({build_dir})")


def _failed(options: BuildOptions, log: Path):
    lines = log.read_text(errors="replace").splitlines(keepends=True)
    errors = [line for line in lines if "%Error" in line or "error:" in line]
    shown = "".join(errors[:20]) or "".join(lines[-30:])
    raise BuildError(f"Verilator build of {options.toplevel} failed (log: {log}):\n{shown}")
