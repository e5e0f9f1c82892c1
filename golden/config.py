"""Hardware profiles: the build-time parameters of one NVDLA configuration.

The values mirror nvdla/hw's spec/defs/*.spec files (../shared/nvdla/configs);
suites/unit/golden/test_config.py checks them against those files. A profile
is always passed explicitly: there is no global "current" profile.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from pathlib import Path

import golden.units
from golden.errors import ProfileError, ProfileFeatureError

#: Unit base address layouts (../shared/nvdla/rdl/unit_base_addresses.tsv).
LAYOUTS = ("master", "nvdlav1")

#: NVIDIA's feature switches a layer can need, as named in the .spec files (a Profile field each). A unit declares
#: the switch it needs (golden/units/declaration.py: Unit.switch); one that is not NVIDIA's (a plugin unit's) is
#: enabled by a .spec file's <SWITCH>_ENABLE line (Profile.plugin_switches), never by a built-in profile.
SWITCHES = (
    "WEIGHT_COMPRESSION", "WINOGRAD", "BATCH", "SECONDARY_MEMIF", "SDP_LUT", "SDP_BS",
    "SDP_BN", "SDP_EW", "BDMA", "RUBIK", "RUBIK_CONTRACT", "RUBIK_RESHAPE", "PDP", "CDP",
    "RETIMING",
)

#: The build parameters a layer's memory layout and CBUF use depend on: a layer made for one value runs on
#: hardware with another as a different layer (nvdla-in-memory-data-formats.md "Feature Data Format").
GEOMETRY = ("mac_atomic_c", "mac_atomic_k", "memory_atomic_size", "cbuf_bank_number", "cbuf_bank_width",
            "cbuf_bank_depth")


@dataclass(frozen=True)
class Profile:
    name: str
    feature_types: frozenset[str]
    weight_types: frozenset[str]
    weight_compression: bool
    winograd: bool
    batch: bool
    max_batch_size: int | None
    secondary_memif: bool
    sdp_lut: bool
    sdp_bs: bool
    sdp_bn: bool
    sdp_ew: bool
    bdma: bool
    rubik: bool
    rubik_contract: bool
    rubik_reshape: bool
    pdp: bool
    cdp: bool
    retiming: bool
    mac_atomic_c: int
    mac_atomic_k: int
    memory_atomic_size: int
    cbuf_bank_number: int
    cbuf_bank_width: int
    cbuf_bank_depth: int
    sdp_bs_throughput: int | None
    sdp_bn_throughput: int | None
    sdp_ew_throughput: int | None
    pdp_throughput: int
    cdp_throughput: int
    primary_memif_latency: int
    secondary_memif_latency: int | None
    primary_memif_max_burst_length: int
    secondary_memif_max_burst_length: int | None
    primary_memif_width: int
    secondary_memif_width: int | None
    mem_address_width: int
    num_dma_read_clients: int | None
    num_dma_write_clients: int | None
    layout: str = "master"
    #: The switches of plugin units (plugin_switches()) this profile enables.
    plugin_switches: frozenset[str] = frozenset()

    @property
    def cbuf_bytes(self) -> int:
        return self.cbuf_bank_number * self.cbuf_bank_width * self.cbuf_bank_depth

    @property
    def cbuf_bank_bytes(self) -> int:
        return self.cbuf_bank_width * self.cbuf_bank_depth

    def has(self, switch: str) -> bool:
        """Whether the feature switch (a name from SWITCHES, or a plugin unit's) is enabled."""
        if switch in SWITCHES:
            return bool(getattr(self, switch.lower()))
        if switch in plugin_switches():
            return switch in self.plugin_switches
        raise ProfileError(f"unknown feature switch {switch!r}; known: {', '.join(SWITCHES + plugin_switches())}")

    def lacks(self, needed: Profile) -> list[str]:
        """What this profile (an implementation's, e.g. the RTL's) lacks to run layers made for `needed`: a
        register layout, a geometry value (atoms and CBUF shape decide where data lives), a feature switch or
        a data type; [] when every such layer runs on it."""
        missing = [f"the {needed.layout} register layout"] if needed.layout != self.layout else []
        missing += [f"{name.upper()} {getattr(needed, name)} (it has {getattr(self, name)})" for name in GEOMETRY
                    if getattr(needed, name) != getattr(self, name)]
        missing += [f"{switch}_ENABLE" for switch in SWITCHES + plugin_switches()  # retiming: pipeline stages only
                    if switch != "RETIMING" and needed.has(switch) and not self.has(switch)]
        missing += [f"{kind} {precision}" for kind, attribute in (("feature data", "feature_types"),
                                                                  ("weight data", "weight_types"))
                    for precision in sorted(getattr(needed, attribute) - getattr(self, attribute))]
        return missing

    def require(self, switch: str, what: str, *, fields: tuple[str, ...] = ()) -> None:
        """Raise ProfileFeatureError naming the profile and switch unless it is enabled."""
        if not self.has(switch):
            raise ProfileFeatureError(what, profile=self.name, switch=f"{switch}_ENABLE", fields=fields)

    def require_precision(self, precision: str, what: str, *, fields: tuple[str, ...] = ()) -> None:
        """Raise unless the profile handles feature data of this precision (int8/int16/fp16)."""
        if precision not in self.feature_types:
            raise ProfileFeatureError(
                f"{what} uses {precision}", profile=self.name,
                switch=f"FEATURE_DATA_TYPE_{precision.upper()}", fields=fields,
            )


_KEYS = {
    "MAC_ATOMIC_C_SIZE": "mac_atomic_c",
    "MAC_ATOMIC_K_SIZE": "mac_atomic_k",
    "MEMORY_ATOMIC_SIZE": "memory_atomic_size",
    "MAX_BATCH_SIZE": "max_batch_size",
    "CBUF_BANK_NUMBER": "cbuf_bank_number",
    "CBUF_BANK_WIDTH": "cbuf_bank_width",
    "CBUF_BANK_DEPTH": "cbuf_bank_depth",
    "SDP_BS_THROUGHPUT": "sdp_bs_throughput",
    "SDP_BN_THROUGHPUT": "sdp_bn_throughput",
    "SDP_EW_THROUGHPUT": "sdp_ew_throughput",
    "PDP_THROUGHPUT": "pdp_throughput",
    "CDP_THROUGHPUT": "cdp_throughput",
    "PRIMARY_MEMIF_LATENCY": "primary_memif_latency",
    "SECONDARY_MEMIF_LATENCY": "secondary_memif_latency",
    "PRIMARY_MEMIF_MAX_BURST_LENGTH": "primary_memif_max_burst_length",
    "SECONDARY_MEMIF_MAX_BURST_LENGTH": "secondary_memif_max_burst_length",
    "PRIMARY_MEMIF_WIDTH": "primary_memif_width",
    "SECONDARY_MEMIF_WIDTH": "secondary_memif_width",
    "MEM_ADDRESS_WIDTH": "mem_address_width",
    "NUM_DMA_READ_CLIENTS": "num_dma_read_clients",
    "NUM_DMA_WRITE_CLIENTS": "num_dma_write_clients",
}
_DEFINE = re.compile(r"^\s*#define\s+(\w+)\s*(?://.*)?$")


def parse_spec(text: str, *, name: str, source: str = "<spec>", layout: str = "master",
               defaults: dict | None = None) -> Profile:
    """Build a Profile from the text of an nvdla/hw .spec file.

    Lines other than `#define NAME` (comments, #include) are ignored. `defaults`
    supplies what the file leaves out (nvdlav1's nv_full.spec has no data type
    or address width lines).
    """
    values: dict = {"feature_types": set(), "weight_types": set(), "plugin_switches": set()}
    for number, line in enumerate(text.splitlines(), 1):
        match = _DEFINE.match(line)
        if not match:
            continue
        word = match.group(1)
        if word.startswith(("FEATURE_DATA_TYPE_", "WEIGHT_DATA_TYPE_")):
            kind = "feature_types" if word.startswith("FEATURE") else "weight_types"
            values[kind].add(word.rsplit("_", 1)[1].lower())
        elif word.endswith(("_ENABLE", "_DISABLE")):
            switch, state = word.rsplit("_", 1)
            if switch in SWITCHES:
                values[switch.lower()] = state == "ENABLE"
            elif switch in plugin_switches():
                values["plugin_switches"] |= {switch} if state == "ENABLE" else set()
            else:
                raise ProfileError(f"unknown feature switch {switch}", where=f"{source}:{number}")
        else:
            key, _, number_text = word.rpartition("_")
            if key not in _KEYS:
                raise ProfileError(f"unknown parameter {word}", where=f"{source}:{number}")
            values[_KEYS[key]] = None if number_text == "x" else int(number_text)
    merged = dict(defaults or {})
    merged.update({k: v for k, v in values.items() if v or not isinstance(v, set)})
    merged["feature_types"] = frozenset(merged.get("feature_types", ()))
    merged["weight_types"] = frozenset(merged.get("weight_types", ()))
    merged["plugin_switches"] = frozenset(merged.get("plugin_switches", ()))
    merged.setdefault("retiming", False)
    for field in dataclasses.fields(Profile):
        if field.name not in ("name", "layout") and field.name not in merged:
            merged[field.name] = None
    missing = [f.name for f in dataclasses.fields(Profile)
               if f.name not in ("name", "layout") and merged[f.name] is None
               and f.type in ("bool", "int")]
    if missing:
        raise ProfileError(f"profile {name} does not define {', '.join(sorted(missing))}", where=source)
    return Profile(name=name, layout=layout, **merged)


def load_spec(path: str | Path, *, name: str | None = None, layout: str = "master",
              defaults: dict | None = None) -> Profile:
    """Load a user's own .spec file (the defines of nvdla/hw's spec/defs)."""
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as exc:
        raise ProfileError(f"cannot read profile spec: {exc.strerror}", where=str(path)) from None
    return parse_spec(text, name=name or path.stem, source=str(path), layout=layout,
                      defaults=defaults)


def plugin_switches() -> tuple[str, ...]:
    """The switches units declare beyond NVIDIA's SWITCHES (plugin units')."""
    return tuple(s for s in dict.fromkeys(golden.units.switches().values()) if s not in SWITCHES)


def _profile(name: str, **overrides) -> Profile:
    return dataclasses.replace(_NV_SMALL, name=name, **overrides)


_NV_SMALL = Profile(
    name="nv_small", feature_types=frozenset({"int8"}), weight_types=frozenset({"int8"}),
    weight_compression=False, winograd=False, batch=False, max_batch_size=None,
    secondary_memif=False, sdp_lut=False, sdp_bs=True, sdp_bn=True, sdp_ew=False,
    bdma=False, rubik=False, rubik_contract=False, rubik_reshape=False, pdp=True, cdp=True,
    retiming=False, mac_atomic_c=8, mac_atomic_k=8, memory_atomic_size=8,
    cbuf_bank_number=32, cbuf_bank_width=8, cbuf_bank_depth=512,
    sdp_bs_throughput=1, sdp_bn_throughput=1, sdp_ew_throughput=None,
    pdp_throughput=1, cdp_throughput=1, primary_memif_latency=64, secondary_memif_latency=None,
    primary_memif_max_burst_length=1, secondary_memif_max_burst_length=None,
    primary_memif_width=64, secondary_memif_width=None, mem_address_width=32,
    num_dma_read_clients=7, num_dma_write_clients=3,
)

_FULL_SDP = dict(sdp_lut=True, sdp_ew=True)

PROFILES: dict[str, Profile] = {
    "nv_small": _NV_SMALL,
    "nv_small_256": _profile(
        "nv_small_256", mac_atomic_c=32, cbuf_bank_width=32, cbuf_bank_depth=128),
    "nv_small_256_full": _profile(
        "nv_small_256_full", mac_atomic_c=32, cbuf_bank_width=32, cbuf_bank_depth=128,
        secondary_memif=True, **_FULL_SDP, sdp_bs_throughput=2, sdp_bn_throughput=2,
        sdp_ew_throughput=1, secondary_memif_latency=64, primary_memif_max_burst_length=4,
        secondary_memif_max_burst_length=4, secondary_memif_width=64, num_dma_read_clients=8),
    "nv_medium_512": _profile(
        "nv_medium_512", mac_atomic_c=32, mac_atomic_k=16, memory_atomic_size=16,
        cbuf_bank_width=32, sdp_bs_throughput=4, sdp_bn_throughput=4, pdp_throughput=2,
        cdp_throughput=2, primary_memif_latency=256, primary_memif_max_burst_length=4,
        primary_memif_width=128, mem_address_width=64),
    "nv_medium_1024_full": _profile(
        "nv_medium_1024_full", secondary_memif=True, **_FULL_SDP, mac_atomic_c=32,
        mac_atomic_k=32, memory_atomic_size=32, cbuf_bank_width=32, sdp_bs_throughput=8,
        sdp_bn_throughput=8, sdp_ew_throughput=2, pdp_throughput=4, cdp_throughput=4,
        primary_memif_latency=1024, secondary_memif_latency=1024,
        primary_memif_max_burst_length=4, secondary_memif_max_burst_length=4,
        primary_memif_width=256, secondary_memif_width=256, mem_address_width=64,
        num_dma_read_clients=8),
    "nv_large": _profile(
        "nv_large", secondary_memif=True, **_FULL_SDP, max_batch_size=32, mac_atomic_c=64,
        mac_atomic_k=32, memory_atomic_size=32, cbuf_bank_number=16, cbuf_bank_width=64,
        sdp_bs_throughput=16, sdp_bn_throughput=16, sdp_ew_throughput=4, pdp_throughput=8,
        cdp_throughput=8, primary_memif_latency=1024, secondary_memif_latency=1024,
        secondary_memif_max_burst_length=1, primary_memif_width=256, secondary_memif_width=256,
        mem_address_width=64, num_dma_read_clients=8),
}
# nvdlav1's nv_full.spec has no data type, address width or DMA client lines;
# nvdlav1 handles int8, int16 and fp16 (the traceplayer tests are int16).
PROFILES["nv_full"] = dataclasses.replace(
    PROFILES["nv_large"], name="nv_full", layout="nvdlav1",
    feature_types=frozenset({"int8", "int16", "fp16"}),
    weight_types=frozenset({"int8", "int16", "fp16"}),
    weight_compression=True, winograd=True, batch=True, bdma=True, rubik=True,
    rubik_contract=True, rubik_reshape=True, primary_memif_latency=1200,
    secondary_memif_latency=128, secondary_memif_max_burst_length=4,
    primary_memif_width=512, secondary_memif_width=512, num_dma_read_clients=None,
    num_dma_write_clients=None,
)

DEFAULT_PROFILE = "nv_full"


def get_profile(name: str) -> Profile:
    """The built-in profile of that name, or the profile a .spec file defines (its path ends in .spec);
    ProfileError lists the known ones otherwise."""
    if name.endswith(".spec"):
        return load_spec(name)
    try:
        return PROFILES[name]
    except KeyError:
        raise ProfileError(
            f"unknown hardware profile {name!r}; known: {', '.join(sorted(PROFILES))} (or a .spec file)"
        ) from None


def infer_profile_name(path: str | Path) -> str | None:
    """The profile named by a folder in nvdla/hw's layout (trace_tests/nv_small/..., traceplayer/...)."""
    parts = Path(path).parts
    for part in reversed(parts):
        if part in PROFILES:
            return part
        if part == "traceplayer":
            return "nv_full"
    return None
