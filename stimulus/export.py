"""Layers written as an NVIDIA `.cfg` trace whose check_crc lines hold the golden model's CRCs.

`write_trace(layers, folder, name, profile)` writes `folder/name.cfg` and one `.dat` file per memory
image, in the layout of NVIDIA's trace_tests (`<profile>/<test>/<test>.cfg` when `folder` is
`<out>/<profile>/<test>`), so that `nvdla-verif conform` and NVIDIA's trace player can replay it.
Each unit alternates register groups 0 and 1 (S_POINTER) over the layers that use it, starting at 0
(its consumer pointer starts there), back to back: every layer is
programmed and launched before the first completion is awaited, so a layer must not read what an
earlier one writes (the generators give each layer its own address slot), unless it `waits`: then
check_nothing lines wait for the earlier layers' done interrupts first.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from golden.config import Profile
from golden.errors import NvdlaVerifError
from golden.memory import format_records
from golden.player import play
from golden.regs.regmap import RegisterMap
from golden.trace import CheckCrc, CheckNothing, Command, IntrNotify, MemLoad, RegWrite, Trace, write_cfg
from stimulus.layer import Layer

#: Done-interrupt source -> the unit whose register group it reports.
INTERRUPT_UNITS = {"RUBIK": "RBK"}
#: Units whose done interrupt a layer may end on.
WATCHED = ("SDP", "PDP", "CDP")


class GenerationError(NvdlaVerifError):
    """A generated layer that cannot be written or that the golden model does not run."""


def _commands(layers: list[Layer], folder: Path, name: str, regmap: RegisterMap) -> tuple[list, list]:
    where = {"path": str(folder / f"{name}.cfg"), "line": 0}

    def write(unit: str, register: str, value: int) -> RegWrite:
        return RegWrite(**where, register=regmap.get(unit, register), value=value & 0xFFFFFFFF)

    commands: list[Command] = [write("GLB", "S_INTR_MASK", 0)]
    checks: list[Command] = []
    pending: list[str] = []
    waits_for: list[CheckNothing] = []
    launches: dict[str, int] = {}  # unit -> layers that used it so far: its next register group is this % 2
    for index, layer in enumerate(layers):
        done_unit = INTERRUPT_UNITS.get(layer.interrupt, layer.interrupt)
        if layer.waits:
            commands += [CheckNothing(**where, sync=sync) for sync in pending]
            pending.clear()
        for image in layer.images:
            dat = f"{name}_{index}_{image.label}.dat"
            (folder / dat).write_text(format_records([(0, np.frombuffer(image.data, np.uint8))]))
            commands.append(MemLoad(**where, memory=image.memory, base=image.base, file=dat))
        for unit in layer.units():
            if any(r.name == "S_POINTER" for r in regmap.registers(unit)):
                group = launches.get(unit, 0) % 2
                commands.append(write(unit, "S_POINTER", regmap.get(unit, "S_POINTER").encode(PRODUCER=group)))
        commands += [write(unit, register, value) for unit, register, value in layer.writes]
        commands += [write(unit, register, value) for unit, register, value in layer.register_writes(regmap)]
        commands += [write(unit, "D_OP_ENABLE", 1) for unit in layer.enable_order()]
        sync = f"layer{index}_done"
        commands.append(IntrNotify(**where, source=f"{layer.interrupt}_{launches.get(done_unit, 0) % 2}", sync=sync))
        pending.append(sync)
        # the other done interrupts a later layer watches (SDP's, when PDP ends the layer): consumed here, as
        # NVIDIA's sdp_pdp traces do, or a later layer's watch would fire on this one's bit
        for unit in (u for u in WATCHED if u in layer.enable and u != done_unit):
            extra = f"layer{index}_{unit.lower()}"
            commands.append(IntrNotify(**where, source=f"{unit}_{launches.get(unit, 0) % 2}", sync=extra))
            waits_for.append(CheckNothing(**where, sync=extra))
        for unit in {*layer.enable, done_unit}:
            launches[unit] = launches.get(unit, 0) + 1
        checks += [CheckCrc(**where, sync=sync, memory=region.memory, base=region.base, size=region.size, crc=0)
                   for region in layer.checks]
    return commands, checks + waits_for


def write_unchecked(layers: list[Layer], folder: str | Path, name: str, profile: Profile) -> Path:
    """The trace with CRC 0 in its checks and no golden run: for layers the golden model must reject."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    commands, checks = _commands(layers, folder, name, RegisterMap.for_profile(profile))
    return write_cfg(commands + checks, folder / f"{name}.cfg", header="illegal layers: the CRCs are not computed")


def play_layers(layers: list[Layer], folder: str | Path, name: str, profile: Profile):
    """Play the layers on the golden model from an in-memory trace in the profile's own register layout
    (any profile, nvdlav1's nv_full included); the .dat files are written to `folder`. Returns the TraceResult."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    commands, checks = _commands(layers, folder, name, RegisterMap.for_profile(profile))
    return play(Trace(folder / f"{name}.cfg", "cfg", profile.layout, commands + checks), profile)


def write_trace(layers: list[Layer], folder: str | Path, name: str, profile: Profile,
                header: str | None = None) -> Path:
    """Write the trace and its .dat files; the CRCs are the golden model's (GenerationError if it fails)."""
    if profile.layout != "master":
        raise GenerationError(f"profile {profile.name} uses the {profile.layout} register layout; NVIDIA's .cfg "
                              f"traces address the master layout (use a master-layout profile such as nv_large, "
                              f"or play the layers in memory: stimulus.export.play_layers)")
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    regmap = RegisterMap.for_profile(profile)
    commands, checks = _commands(layers, folder, name, regmap)
    cfg = write_cfg(commands + checks, folder / f"{name}.cfg")
    result = play(cfg, profile)
    if result.memory is None:
        raise GenerationError(f"the golden model did not run the generated trace: {result.status} {result.detail}",
                              where=str(cfg))
    checks = [CheckCrc(**{"path": c.path, "line": 0}, sync=c.sync, memory=c.memory, base=c.base, size=c.size,
                       crc=result.memory.by_name(c.memory).crc32(c.base, c.size)) if isinstance(c, CheckCrc) else c
              for c in checks]
    lines = header or f"{len(layers)} generated layer(s) ({', '.join(sorted({x.family for x in layers}))})"
    return write_cfg(commands + checks, cfg, header=f"{lines}\nCRCs from the nvdla-verif golden model.")
