"""What the covergroups share: size and channel classes, a surface's memory points, a LUT's port accesses and
its outcome counters, and the stacking of cover points into one sampler."""

from __future__ import annotations

SIZE_CLASSES = ("1", "2-4", "5-16", "17+")
CHANNEL_CLASSES = ("1", "part-atom", "one-atom", "atoms", "atoms+part")
BATCH_CLASSES = ("1", "2-4", "5+", "max")
ALIGN_CLASSES = ("<64", "64", "128", "256+")


def size_class(n: int) -> str:
    return "1" if n == 1 else "2-4" if n <= 4 else "5-16" if n <= 16 else "17+"


def channel_class(channels: int, per_atom: int) -> str:
    """1, part of an atom, exactly one atom, whole atoms, or whole atoms plus a part."""
    if channels == 1:
        return "1"
    if channels < per_atom:
        return "part-atom"
    if channels == per_atom:
        return "one-atom"
    return "atoms" if channels % per_atom == 0 else "atoms+part"


def batch_class(batches: int, largest: int | None) -> str:
    """1, a few, more, or exactly the profile's MAX_BATCH_SIZE."""
    if batches == 1:
        return "1"
    if batches == largest:
        return "max"
    return "2-4" if batches <= 4 else "5+"


def align(address: int) -> str:
    """The largest of 64, 128 and 256 bytes the address is a multiple of ("<64": none of them)."""
    return "256+" if address % 256 == 0 else "128" if address % 128 == 0 else "64" if address % 64 == 0 else "<64"


def ram(cvsram: bool) -> str:
    return "sec_mem" if cvsram else "pri_mem"


def memories(profile) -> tuple[str, ...]:
    """The RAM types a surface can be in."""
    return ("pri_mem", "sec_mem") if profile.secondary_memif else ("pri_mem",)


def packed(stride: int, line_bytes: int) -> str:
    return "packed" if stride == line_bytes else "gap"


def sign_class(value: int) -> str:
    return "negative" if value < 0 else "zero" if value == 0 else "positive"


def stack(decorators):
    """One sampler of every cover point and cross in `decorators` (each samples what the sampler is given)."""
    def sample(cfg):
        return None
    for decorator in reversed(decorators):
        sample = decorator(sample)
    return sample


def when_run(stages_run: tuple[str, ...], decode, sample):
    """A layer sampler: `sample(decode(regs))` of every layer that runs one of `stages_run`."""
    def sample_layer(stages, regs, status) -> None:
        if any(stage in stages for stage in stages_run):
            sample(decode(regs))
    return sample_layer


def memory_points(coverage, g: str, src, dst, high_ignore=()) -> list:
    """RAM type and base address (alignment; on profiles with addresses above 32 bits, whether the high
    word is used) of a unit's source and destination surfaces, each crossed with its RAM type. `src` and
    `dst` give the sampled object's (address, line stride, surface stride, in CV-SRAM), or None."""
    p = coverage.profile
    decorators = []
    for side, surface in (("src", src), ("dst", dst)):
        decorators += [
            coverage.point(g, f"{side}_ram", lambda c, s=surface: None if s(c) is None else ram(s(c)[3]),
                           memories(p)),
            coverage.point(g, f"{side}_align", lambda c, s=surface: None if s(c) is None else align(s(c)[0]),
                           ALIGN_CLASSES),
            coverage.cross(g, f"{side}_align_x_{side}_ram", [f"{side}_align", f"{side}_ram"]),
        ]
        if p.mem_address_width > 32:
            decorators += [
                coverage.point(g, f"{side}_addr_high", lambda c, s=surface: None if s(c) is None else
                               "zero" if s(c)[0] >> 32 == 0 else "nonzero", ("zero", "nonzero")),
                coverage.cross(g, f"{side}_addr_high_x_{side}_ram", [f"{side}_addr_high", f"{side}_ram"],
                               high_ignore),
            ]
    return decorators


def lut_accesses(coverage, g: str, unit: str):
    """The LUT port accesses of `unit` (points lut_table, lut_access of `g`): a writes sampler, one sample per
    S_LUT_ACCESS_CFG write of a layer that runs the unit. A run layer brings the accesses since the unit's previous
    layer (HardwareLayer.lut_accesses): a trace that programs the LUT once samples them with its first layer."""
    sample = stack([coverage.point(g, "lut_table", lambda a: a[0], ("LE", "LO")),
                    coverage.point(g, "lut_access", lambda a: a[1], ("READ", "WRITE"))])
    register = coverage.regmap.get(unit, "S_LUT_ACCESS_CFG")
    table, access = register.field("LUT_TABLE_ID"), register.field("LUT_ACCESS_TYPE")

    def sample_writes(stages, writes):
        if unit not in stages:
            return
        for written_unit, name, value in writes:
            if written_unit == unit and name == "S_LUT_ACCESS_CFG":
                sample((table.enum_name(table.decode(value)), access.enum_name(access.decode(value))))
    return sample_writes


def lut_outcomes(coverage, g: str, unit: str, extra: list):
    """Cover points of a LUT's outcome counters in one run: none or some elements of each kind. The sampler takes
    (configuration, whether the layer used its LUT, the run's status)."""
    decorators = list(extra)
    for kind in ("UFLOW", "OFLOW", "HYBRID", "LE_HIT", "LO_HIT"):
        decorators.append(coverage.point(g, f"lut.{kind.lower()}", lambda run, k=kind: _lut_count(run, unit, k),
                                         ("none", "some")))
    decorators.append(coverage.point(g, "le_function", lambda run: run[0].lut.le_function if run[1] else None,
                                     ("LINEAR", "EXPONENT")))
    decorators.append(coverage.point(g, "precision", lambda run: _processing(run[0]) if run[1] else None,
                                     sorted(coverage.profile.feature_types)))
    for kind in ("uflow", "oflow", "le_hit", "lo_hit"):
        decorators.append(coverage.cross(g, f"le_function_x_{kind}", ["le_function", f"lut.{kind}"]))
        decorators.append(coverage.cross(g, f"precision_x_{kind}", ["precision", f"lut.{kind}"]))
    return stack(decorators)


def _lut_count(run, unit: str, kind: str) -> str | None:
    """none / some elements of a LUT outcome in a run that used the LUT (D_PERF_LUT_<kind>)."""
    cfg, used, status = run
    value = status.get((unit, f"D_PERF_LUT_{kind}"))
    return None if not used or value is None else "some" if value else "none"


def _processing(cfg) -> str:
    return getattr(cfg, "proc_precision", None) or cfg.precision
