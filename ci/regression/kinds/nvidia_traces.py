"""kind: nvidia_traces. NVIDIA's traces under --nvdla-data that a glob names, each one item; `expected_invalid`
names the traces a profile must reject ({trace: the switch the rejection names})."""

from __future__ import annotations

from pathlib import Path

from ci import shell
from ci.regression import engine
from ci.regression.engine import Run, Settings
from ci.regression.item import Item
from ci.regression.kinds.base import Expansion, TestKind
from golden.config import infer_profile_name


class NvidiaTraces(TestKind):
    name = "nvidia_traces"
    required = ("glob",)
    optional = ("expected_invalid",)

    def expand(self, test: dict, expansion: Expansion) -> list[Item]:
        globs = [test["glob"]] if isinstance(test["glob"], str) else test["glob"]
        paths = sorted({p for pattern in globs for p in expansion.data_root.glob(pattern) if p.is_file()})
        invalid = test.get("expected_invalid", {})
        items = []
        for p in paths:
            name = p.parent.name if p.suffix == ".txn" else p.stem
            profile = infer_profile_name(p) or "unknown"
            params = {"path": str(p.resolve()), "profile": profile, "name": name}
            if name in invalid:
                params["expected_invalid"] = invalid[name]
            items.append(Item(f"nvidia/{profile}/{name}", self.name, params))
        return items

    def run(self, item: Item, settings: Settings) -> Run:
        return self.play_trace(item, Path(item.params["path"]), settings)

    def budget_s(self, item: Item, settings: Settings) -> float:
        path = Path(item.params["path"])
        return engine.budget_s(settings.impl, engine.layer_bytes(path) if path.exists() else 0, settings.timeout_scale)

    def reproduce(self, item: Item, settings: Settings) -> str:
        name = item.id.replace("/", "-")
        profile = shell.option("--profile", settings.profile) if settings.profile else []
        return shell.line([*settings.command, "conform", shell.positional(item.params["path"]),
                           *engine.implementation_arguments(settings), *profile,
                           *shell.option("--json", f"repro-{name}.json")])
