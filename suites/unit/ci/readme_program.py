"""`python readme_program.py FOLDER`: a protocol 2 external program written from the README's "External
programs" alone. It reads request.json and program.json (never the trace) and executes the steps on a device
model, here the golden model's Hardware (CSB, memories, one step of time at a time), as a vendor would on theirs.
"""

import json
import sys
from pathlib import Path

import numpy as np

from golden.config import get_profile
from golden.hardware import Hardware


class Hang(Exception):
    """The simulation can never finish: a sync that never fires, a wait for an interrupt that never comes."""


class Player:
    def __init__(self, folder: Path, request: dict):
        self.folder, self.device = folder, Hardware(get_profile(request["profile"]), request["layout"])
        self.watches, self.fired, self.interrupts, self.registers = [], set(), [], {}

    def csb(self, address: int, value: int | None = None) -> int | None:
        register = self.device.regmap.at(address)
        return self.device.read(register) if value is None else self.device.write(register, value)

    def time_passes(self) -> bool | None:
        """One step of time (None: nothing more can happen; True: the interrupt line rose), then the watches."""
        line = self.device.step()
        self.serve_watches()
        return line

    def serve_watches(self) -> None:
        for watch in list(self.watches):
            status = self.device.interrupt_status
            bits = status if watch["bit"] is None else status & (1 << watch["bit"])
            if bits:
                self.watches.remove(watch)
                self.fired.add(watch["sync"])
                self.interrupts.append(f"{watch['source'] or 'any'} -> {watch['sync']}")
                if watch["bit"] is not None:
                    self.device.write(self.device.regmap.get("GLB", "S_INTR_STATUS"), bits)  # write 1 to clear

    def await_sync(self, step: dict) -> None:
        """Until the step's sync fires (a null sync: until nothing more can happen)."""
        while step["sync"] not in self.fired:
            if self.time_passes() is None:
                if step["sync"] is None:
                    return
                raise Hang(f"{step['where']}: sync {step['sync']} never fired")

    def play(self, index: int, step: dict) -> None:
        op = step["op"]
        if op == "write_register":
            self.csb(step["address"], step["value"])
        elif op == "read_register":
            value = self.csb(step["address"])
            while step["poll"] and (value ^ step["expected"]) & step["mask"] and self.time_passes() is not None:
                value = self.csb(step["address"])
            self.registers[str(index)] = value
        elif op == "fill_memory":
            self.device.memory.by_name(step["memory"]).fill(step["base"], step["size"], 0)
        elif op == "load_memory":
            memory = self.device.memory.by_name(step["memory"])
            for record in step["records"]:
                memory.write(step["base"] + record["offset"], np.fromfile(self.folder / record["file"], np.uint8))
        elif op == "watch_interrupt":
            self.watches.append(step)
            self.serve_watches()
        elif op == "wait_interrupt":  # one more interrupt; bits set before do not count
            while not (line := self.time_passes()):
                if line is None:
                    raise Hang(f"{step['where']}: no interrupt ever comes")
        elif op in ("await_sync", "check_region"):
            self.await_sync(step)
        if op == "check_region":
            data = self.device.memory.by_name(step["memory"]).read(step["base"], step["size"], unwritten="allow")
            payload = " ".join(f"0x{byte:02x}" for byte in data.tobytes())
            (self.folder / "out" / f"region_{index}.dat").write_text(
                f"{{offset:0x0, size:{step['size']}, payload:{payload}}}\n")


def main(folder: Path) -> int:
    request = json.loads((folder / "request.json").read_text())
    player, result = Player(folder, request), {"protocol": 2}
    try:
        for index, step in enumerate(json.loads((folder / request["program"]).read_text())["steps"]):
            player.play(index, step)
    except Hang as hang:
        result.update(status="hang", detail=str(hang))
    result.update(registers=player.registers, interrupts=player.interrupts)
    (folder / "out" / "result.json").write_text(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1])))
