"""Test helper: a layer context with some register fields changed, for tests that break one rule by hand."""

from __future__ import annotations


def with_fields(ctx, **changes):
    """Change register fields of `ctx.regs`, given as UNIT__REG__FIELD=value; returns ctx."""
    values = {}
    for key, number in changes.items():
        unit, reg, name = key.split("__")
        field = ctx.regs.register(unit, reg).field(name)
        old = values.get((unit, reg), ctx.regs.value(unit, reg))
        mask = ((1 << field.width) - 1) << field.lsb
        values[unit, reg] = (old & ~mask) | (number << field.lsb)
    ctx.regs = ctx.regs.with_values(values)
    return ctx
