"""The CSB-visible register file of one NVDLA, with the ping-pong register groups.

Every unit with an `S_POINTER` register (CDMA, CSC, CMAC_A/B, CACC, SDP_RDMA, SDP,
PDP_RDMA, PDP, CDP_RDMA, CDP, RBK) holds its `D_` registers twice (groups 0 and 1).
`S_POINTER.PRODUCER` selects the group CSB reads and writes of `D_` registers go to;
`S_POINTER.CONSUMER` (read-only) is the group the hardware executes next. Writing
`D_OP_ENABLE = 1` arms a group; the hardware runs the consumer group once it is armed
(and, for a pipeline, once every unit of the hardware layer is armed: golden/player.py
decides that), then clears its op-enable, flips the consumer and raises the GLB
interrupt. `S_STATUS` reports each group as IDLE, RUNNING (armed consumer) or PENDING
(armed, waiting for the other group). Source: NVIDIA SystemRDL (field access types)
and the programming guide ("Convolution pipeline programming": ping-pong groups).

Reads return the readable bits only (fields with sw access `r`/`rw`); writes change the
writable bits only, so status registers keep their hardware values. Special cases:
GLB.S_INTR_STATUS is write-1-to-clear, GLB.S_INTR_SET sets status bits,
CDMA.S_CBUF_FLUSH_STATUS reads 0 until the player lets time pass, then 1.

BDMA has no ping-pong groups; this file holds its one slot/group state machine
(programming guide, "BDMA programming"; golden/units/bdma.py copies one operation):
CFG_OP and CFG_LAUNCH<g> are plain registers that read back what was written, and
each CFG_OP.EN=1 write caches a snapshot of the CFG_ registers in one of 20 slots;
CFG_LAUNCH0/1 = 1 closes the cached operations into group 0/1, which waits in
`bdma_launched` until the player runs it. STATUS.FREE_SLOT is 20 minus every operation
still held, launched or not (nvdla/hw vmod/nvdla/bdma/NV_NVDLA_BDMA_csb.v: 20 minus the
command FIFO's count; a launched group leaves the FIFO only as the loader takes it),
GRP<g>_BUSY is set by the launch and cleared when the group has run, and IDLE means
nothing is held.
"""

from __future__ import annotations

from golden.errors import ConfigurationError
from golden.regs.regmap import Register, RegisterMap
from golden.regs.values import RegisterValues

GROUPS = (0, 1)
IDLE, RUNNING, PENDING = 0, 1, 2
BDMA_SLOTS = 20  # programming guide, "BDMA programming": 20 register entries
BDMA_GUIDE = "programming-guide: BDMA programming"
BDMA_LIMIT = "programming-guide: Limitation/BDMA"


class RegisterFile:
    def __init__(self, regmap: RegisterMap):
        self.regmap = regmap
        self.pingpong = {reg.unit for reg in regmap if reg.name == "S_POINTER"}
        self._single: dict[tuple[str, str], int] = {}
        self._groups: tuple[dict, dict] = ({}, {})
        self.consumer: dict[str, int] = dict.fromkeys(self.pingpong, 0)
        #: CDMA's CBUF flush after reset takes a while: FLUSH_DONE reads 0 until time passes (the
        #: traceplayer's googlenet_conv2_3x3_int16 reads 0 early; the .cfg traces poll for 1).
        self.cbuf_flushed = False
        #: BDMA operations cached by CFG_OP.EN writes, per group; launched groups wait in `bdma_launched`.
        self.bdma_ops: list[dict[tuple[str, str], int]] = []
        self.bdma_launched: list[tuple[int, list[dict[tuple[str, str], int]]]] = []

    # -- storage -------------------------------------------------------------------------------------
    def _store(self, reg: Register, group: int | None = None) -> dict:
        if reg.unit in self.pingpong and reg.is_double_buffered:
            return self._groups[self.producer(reg.unit) if group is None else group]
        return self._single

    def raw(self, unit: str, name: str, group: int | None = None) -> int:
        reg = self.regmap.get(unit, name)
        return self._store(reg, group).get((unit, name), reg.reset)

    def producer(self, unit: str) -> int:
        reg = self.regmap.get(unit, "S_POINTER")
        return reg.field("PRODUCER").decode(self._single.get((unit, "S_POINTER"), reg.reset))

    def enabled(self, unit: str, group: int) -> bool:
        return bool(self.raw(unit, "D_OP_ENABLE", group) & 1)

    # -- CSB access ------------------------------------------------------------------------------------
    def write(self, reg: Register, value: int) -> None:
        """A CSB write of a 32-bit value."""
        key = (reg.unit, reg.name)
        value &= 0xFFFFFFFF
        if key == ("GLB", "S_INTR_STATUS"):
            self._single[key] = self.raw("GLB", "S_INTR_STATUS") & ~value & reg.readable_mask
            return
        if key == ("GLB", "S_INTR_SET"):
            self.raise_interrupts(value & reg.writable_mask)
            return
        store = self._store(reg)
        old = store.get(key, reg.reset)
        writable = reg.writable_mask
        store[key] = (old & ~writable) | (value & writable)
        if reg.unit == "BDMA":
            self._bdma_write(reg.name, value)

    def read(self, reg: Register) -> int:
        """A CSB read: readable bits of the register (D_ registers from the producer group)."""
        unit, name = reg.unit, reg.name
        if (unit, name) == ("CDMA", "S_CBUF_FLUSH_STATUS"):
            return int(self.cbuf_flushed)
        if unit in self.pingpong and name == "S_POINTER":
            value = self.producer(unit) | self.consumer[unit] << 16
        elif unit in self.pingpong and name == "S_STATUS":
            value = self.group_state(unit, 0) | self.group_state(unit, 1) << 16
        elif (unit, name) == ("BDMA", "STATUS"):
            busy = self.bdma_busy()
            value = reg.encode(FREE_SLOT=BDMA_SLOTS - self.bdma_held(), IDLE=int(not self.bdma_held()),
                               GRP0_BUSY=int(busy[0]), GRP1_BUSY=int(busy[1]))
        else:
            value = self._store(reg).get((unit, name), reg.reset)
        return value & reg.readable_mask

    def group_state(self, unit: str, group: int) -> int:
        if not self.enabled(unit, group):
            return IDLE
        return RUNNING if group == self.consumer[unit] else PENDING

    # -- what the hardware sees ------------------------------------------------------------------------
    def armed(self) -> dict[str, int]:
        """Units whose consumer group has D_OP_ENABLE set: {unit: group}."""
        return {unit: group for unit, group in self.consumer.items() if self.enabled(unit, group)}

    def armed_group(self, unit: str) -> int | None:
        """armed() of one unit: its consumer group if that has D_OP_ENABLE set, else None."""
        group = self.consumer.get(unit)
        return group if group is not None and self.enabled(unit, group) else None

    def values(self, groups: dict[str, int] | None = None) -> RegisterValues:
        """RegisterValues of every register: S_ registers, and the D_ registers of each unit's
        group in `groups` (default: its consumer group)."""
        groups = {**self.consumer, **(groups or {})}
        merged = dict(self._single)
        for unit, group in groups.items():
            merged.update({key: v for key, v in self._groups[group].items() if key[0] == unit})
        return RegisterValues(self.regmap, merged)

    def set_hardware(self, unit: str, name: str, value: int, group: int | None = None) -> None:
        """Hardware-owned update (status/counter registers), bypassing the sw access rights."""
        reg = self.regmap.get(unit, name)
        store = self._groups[group] if (group is not None and unit in self.pingpong
                                        and reg.is_double_buffered) else self._store(reg)
        store[unit, name] = value & 0xFFFFFFFF

    def complete(self, unit: str) -> int:
        """The consumer group of `unit` finished: clear its op-enable and flip the consumer."""
        group = self.consumer[unit]
        self._groups[group][unit, "D_OP_ENABLE"] = 0
        self.consumer[unit] = group ^ 1
        return group

    # -- interrupts ------------------------------------------------------------------------------------
    def raise_interrupts(self, bits: int) -> None:
        reg = self.regmap.get("GLB", "S_INTR_STATUS")
        self._single["GLB", "S_INTR_STATUS"] = (self.raw("GLB", "S_INTR_STATUS") | bits) & reg.readable_mask

    def interrupt_bit(self, source: str, group: int) -> int:
        """The S_INTR_STATUS bit of e.g. source "SDP" ("CDMA_DAT", "CACC", ...) and group 0/1."""
        return self.regmap.get("GLB", "S_INTR_STATUS").field(f"{source}_DONE_STATUS{group}").mask

    def unmasked(self, bits: int) -> int:
        return bits & ~self.raw("GLB", "S_INTR_MASK")

    # -- BDMA ----------------------------------------------------------------------------------------------
    def bdma_held(self) -> int:
        """Operations in the slots: cached since the last launch, or launched and not yet run."""
        return len(self.bdma_ops) + sum(len(ops) for _, ops in self.bdma_launched)

    def bdma_busy(self) -> tuple[bool, bool]:
        """GRP0_BUSY, GRP1_BUSY: launched and not yet run."""
        launched = {group for group, _ in self.bdma_launched}
        return 0 in launched, 1 in launched

    def _bdma_write(self, name: str, value: int) -> None:
        if name == "CFG_OP" and value & 1:
            if all(self.bdma_busy()):
                raise ConfigurationError(
                    "an operation was enabled while group 0 and group 1 are both busy",
                    fields=("BDMA.CFG_OP.EN", "BDMA.STATUS.GRP0_BUSY", "BDMA.STATUS.GRP1_BUSY"), rule=BDMA_LIMIT)
            if self.bdma_held() >= BDMA_SLOTS:
                raise ConfigurationError(
                    f"an operation was enabled with no free slot (all {BDMA_SLOTS} hold operations; poll "
                    "STATUS.FREE_SLOT first, and a group holds at most 20 operations)",
                    fields=("BDMA.CFG_OP.EN", "BDMA.STATUS.FREE_SLOT"), rule=f"{BDMA_GUIDE} (20 slots)")
            self.bdma_ops.append({key: v for key, v in self._single.items() if key[0] == "BDMA"})
        elif name in ("CFG_LAUNCH0", "CFG_LAUNCH1") and value & 1:
            group = int(name[-1])
            if self.bdma_busy()[group]:
                raise ConfigurationError(
                    f"group {group} was launched again before its interrupt returned",
                    fields=(f"BDMA.{name}.GRP{group}_LAUNCH", f"BDMA.STATUS.GRP{group}_BUSY"), rule=BDMA_GUIDE)
            self.bdma_launched.append((group, self.bdma_ops))
            self.bdma_ops = []

    def bdma_values(self, op: dict[tuple[str, str], int]) -> RegisterValues:
        return RegisterValues(self.regmap, {**self._single, **op})

    def launched_operations(self) -> tuple[str, int, list[RegisterValues]] | None:
        """The next launched group of queued operations, taken off the queue: (register group, group number, the
        registers of each operation); None when no group waits."""
        if not self.bdma_launched:
            return None
        group, ops = self.bdma_launched.pop(0)
        return "BDMA", group, [self.bdma_values(op) for op in ops]
