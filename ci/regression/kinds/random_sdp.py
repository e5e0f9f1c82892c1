"""kind: random_sdp. Random SDP layers for the fixture DUT (stimulus/sdp/fixture.py), `layers` per trace."""

from __future__ import annotations

from ci.regression.engine import Run, Settings
from ci.regression.item import Item
from ci.regression.kinds.base import Expansion, TestKind
from ci.regression.planning import seeds


class RandomSdp(TestKind):
    name = "random_sdp"
    required = ("layers", "seeds")
    optional = ("fixed_seeds", "count")
    seeded = True

    def expand(self, test: dict, expansion: Expansion) -> list[Item]:
        layers = int(test["layers"])
        return [Item(f"random_sdp/s{s}_{layers}l", self.name, {"seed": s, "layers": layers, "profile": "nv_small"})
                for s in seeds(test, expansion.level, expansion.seed, test["name"])]

    def run(self, item: Item, settings: Settings) -> Run:
        from stimulus.sdp.fixture import write_random_trace

        path = write_random_trace(settings.work / "random", item.params["seed"], item.params["layers"])
        return self.play_trace(item, path, settings, item.params.get("profile"))
