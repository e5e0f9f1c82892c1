"""The one exception family for everything a user can get wrong.

Every message says *where* (file:line, UNIT.REGISTER.FIELD, address) and
*which rule* (document and section) so that a nightly report is readable
without a traceback.
"""

from __future__ import annotations

import errno


class NvdlaVerifError(Exception):
    """Base of every error the project raises on bad input."""

    def __init__(self, message: str, *, where: str | None = None, rule: str | None = None):
        self.message = message
        self.where = where
        self.rule = rule
        super().__init__(self.__str__())

    def __str__(self) -> str:
        text = f"{self.where}: {self.message}" if self.where else self.message
        if self.rule:
            text += f" [rule: {self.rule}]"
        return text


class TraceError(NvdlaVerifError):
    """A trace file is malformed: bad syntax, unknown command, unreadable file."""

    def __init__(self, message: str, *, path: str, line: int | None = None, rule: str | None = None):
        self.path = path
        self.line = line
        where = f"{path}:{line}" if line is not None else path
        super().__init__(message, where=where, rule=rule)


class RegisterError(NvdlaVerifError):
    """A register name, address or field value that the register map rejects."""

    def __init__(self, message: str, *, register: str | None = None, rule: str | None = None):
        self.register = register
        super().__init__(message, where=register, rule=rule)


class ConfigurationError(NvdlaVerifError):
    """A register programming that breaks a documented hardware limitation.

    `fields` names the register fields involved, e.g. ("PDP.D_POOLING_PADDING_CFG.PAD_LEFT",).
    """

    def __init__(self, message: str, *, fields: tuple[str, ...] = (), rule: str | None = None):
        self.fields = tuple(fields)
        super().__init__(message, where=", ".join(self.fields) or None, rule=rule)


class ProfileFeatureError(ConfigurationError):
    """A layer uses a feature that its hardware profile does not have."""

    def __init__(self, message: str, *, profile: str, switch: str, fields: tuple[str, ...] = ()):
        self.profile = profile
        self.switch = switch
        super().__init__(
            f"{message}: profile {profile} lacks {switch}",
            fields=fields,
            rule=f"hardware profile {profile}: {switch} disabled",
        )


class ProfileError(NvdlaVerifError):
    """A hardware profile name or .spec file that cannot be used."""


class MemoryAccessError(NvdlaVerifError):
    """A read of never-written bytes, an access outside the declared regions, or a bad address."""

    def __init__(self, message: str, *, address: int, size: int = 0, rule: str | None = None):
        self.address = address
        self.size = size
        where = f"address 0x{address:x}" + (f"+0x{size:x}" if size else "")
        super().__init__(message, where=where, rule=rule)


class DataFileError(NvdlaVerifError):
    """A memory file (.dat/.mem) that cannot be parsed or read, or one a trace may not read (outside its folder).

    `read_by` is the trace's file:line of the command reading it, when `path` is the memory file's own.
    """

    def __init__(self, message: str, *, path: str, line: int | None = None, read_by: str | None = None,
                 rule: str | None = None):
        self.path = path
        self.line = line
        self.read_by = read_by
        where = f"{path}:{line}" if line is not None else path
        super().__init__(message + (f" (read by the trace at {read_by})" if read_by else ""), where=where, rule=rule)


class NotModelledError(NvdlaVerifError):
    """The layer needs a unit or feature that the golden model does not implement yet.

    This is never a pass: the conformance runner reports it as "unsupported".
    """

    def __init__(self, message: str, *, unit: str):
        self.unit = unit
        super().__init__(message, where=unit)


class MemoryLimitError(NvdlaVerifError):
    """An access, a surface or a memory image larger than the golden model's memory limit.

    The limit (golden.limits.set_memory_limit, Memory.limit) keeps a hostile stride or size from
    exhausting the host; raise it when a real layer needs more.
    """

    def __init__(self, message: str, *, what: str, size: int, limit: int):
        self.what = what
        self.size = size
        self.limit = limit
        super().__init__(message, rule="golden model: memory limit (golden.limits.set_memory_limit, --memory-limit)")


class DeclarationError(NvdlaVerifError):
    """A unit (golden/units/declaration.py: Unit), its register table, or a stimulus family (stimulus/families.py:
    Family) declared inconsistently, or twice, e.g. by a plugin."""


class ResourceError(NvdlaVerifError):
    """The host ran out of something a run needs: memory (MemoryError) or disk space (ENOSPC, EDQUOT).

    Not a bad input, but never an "internal error" either: the message names the limit or the folder, what was
    kept and what to do."""


class MemoryExhaustedError(ResourceError):
    """An allocation failed: the message names the memory limit in force and the address-space limit, if any."""

    def __init__(self, message: str, *, limit: int, address_space: int | None):
        self.limit = limit
        self.address_space = address_space
        super().__init__(message, rule="golden model: memory limit (--memory-limit) and the host's memory")


class DiskFullError(ResourceError):
    """A write failed for want of space (or quota): the message names the path and what was kept."""

    #: The errno of a write that found no space: the device is full, or the user's quota is.
    ERRNOS = (errno.ENOSPC, errno.EDQUOT)

    def __init__(self, message: str, *, path: str | None):
        self.path = path
        super().__init__(message)
