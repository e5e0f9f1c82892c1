"""Generate golden/regs/nvdla_regs.json from NVIDIA's SystemRDL register description.

    python -m golden.regs.generate RDL_DIR [-o OUT]

RDL_DIR holds `systemrdl2/nvdla_top.rdl` (or `nvdla_top.rdl` itself) and
`unit_base_addresses.tsv` (unit bases of the master and nvdlav1 layouts), as
../shared/nvdla/rdl does. Needs the `regs` extra (systemrdl-compiler).
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path

DEFAULT_OUT = Path(__file__).with_name("nvdla_regs.json")


def _top_file(rdl_dir: Path) -> Path:
    for candidate in (rdl_dir / "systemrdl2" / "nvdla_top.rdl", rdl_dir / "nvdla_top.rdl"):
        if candidate.is_file():
            return candidate
    raise SystemExit(f"{rdl_dir}: no systemrdl2/nvdla_top.rdl or nvdla_top.rdl")


def _bases(tsv: Path) -> dict[str, dict[str, int | None]]:
    with tsv.open() as handle:
        rows = csv.DictReader(handle, delimiter="\t")
        return {
            row["unit"].removeprefix("NVDLA_"): {
                layout: None if row[f"{layout}_byte_base"] in ("-", "") else int(row[f"{layout}_byte_base"], 16)
                for layout in ("master", "nvdlav1")
            }
            for row in rows
        }


def _access(field) -> str:
    from systemrdl.rdltypes import AccessType

    sw = field.get_property("sw")
    return {AccessType.rw: "rw", AccessType.r: "r", AccessType.w: "w"}.get(sw, str(sw))


def elaborate(rdl_dir: Path) -> dict:
    from systemrdl import RDLCompiler
    from systemrdl.node import AddressableNode

    compiler = RDLCompiler()
    compiler.compile_file(str(_top_file(rdl_dir)))
    root = compiler.elaborate(top_def_name="nvdla").top
    bases = _bases(rdl_dir / "unit_base_addresses.tsv")
    units, registers = {}, []
    for unit_node in root.children():
        assert isinstance(unit_node, AddressableNode), "NVIDIA's nvdla address map holds one addrmap per unit"
        unit = unit_node.inst_name.removeprefix("NVDLA_")
        units[unit] = {"master": unit_node.absolute_address, "nvdlav1": bases.get(unit, {}).get("nvdlav1")}
        for reg in unit_node.registers():
            fields = []
            for fld in reg.fields():
                encode = fld.get_property("encode")
                fields.append({
                    "name": fld.inst_name,
                    "lsb": fld.lsb,
                    "msb": fld.msb,
                    "reset": fld.get_property("reset") or 0,
                    "sw": _access(fld),
                    "hw": str(fld.get_property("hw")).removeprefix("AccessType."),
                    "enum": {member.name: member.value for member in encode} if encode else None,
                })
            registers.append({"unit": unit, "name": reg.inst_name, "offset": reg.address_offset,
                              "fields": fields})
    return {"source": "NVIDIA SystemRDL (nvdla/hw spec/manual), elaborated with systemrdl-compiler",
            "units": units, "registers": registers}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rdl_dir", type=Path, help="folder with systemrdl2/nvdla_top.rdl and unit_base_addresses.tsv")
    parser.add_argument("-o", "--out", type=Path, default=DEFAULT_OUT, help=f"output JSON (default {DEFAULT_OUT})")
    args = parser.parse_args(argv)
    table = elaborate(args.rdl_dir)
    args.out.write_text(json.dumps(table, indent=1) + "\n")
    print(f"{args.out}: {len(table['units'])} units, {len(table['registers'])} registers, "
          f"{sum(len(r['fields']) for r in table['registers'])} fields", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
