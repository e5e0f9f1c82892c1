"""The batch launcher's settings: sizes, time limits, array index lists, shard counts, and each shard's request
derived from its tests' time budgets (ci/regression/batch.py)."""

from __future__ import annotations

import pytest

from ci.regression.batch import START_S, Batch, BatchOptions, memory_mb, minutes
from ci.regression.engine import Settings, budget_s
from ci.regression.launchers.base import index_list
from ci.regression.launchers.slurm import Slurm, slurm_minutes
from ci.regression.plan import Item, PlanError


@pytest.mark.parametrize("text, mb", [("8G", 8192), ("4096M", 4096), ("4096", 4096), ("1.5g", 1536),
                                      ("2GB", 2048), (512, 512)])
def test_memory_sizes(text, mb):
    assert memory_mb(text) == mb


@pytest.mark.parametrize("text, total", [("90", 90), ("1:30", 90), ("1:30:00", 90), ("0:00:30", 1),
                                         ("2:00:01", 121), (15, 15)])
def test_time_limits_in_whole_minutes(text, total):
    assert minutes(text) == total


@pytest.mark.parametrize("text", ["0", "1:2:3:4", "soon", "-5"])
def test_bad_time_limits(text):
    with pytest.raises(PlanError):
        minutes(text)


def test_index_lists():
    assert index_list([1, 2, 3, 5, 7, 8]) == "1-3,5,7-8"
    assert index_list([4]) == "4"


def test_shard_counts():
    assert BatchOptions("slurm").shard_count(25) == 4
    assert BatchOptions("slurm", shards=40).shard_count(25) == 25  # never an empty shard
    assert BatchOptions("slurm", tests_per_shard=10).shard_count(25) == 3


def test_a_shard_asks_for_its_largest_part_of_the_tests_budgets(tmp_path):
    items = [Item(f"generated/sdp/s{i}", "generated", {"family": "sdp", "layers": 2, "seed": i}) for i in range(5)]
    manifest = {"level": "nightly", "items": [i.as_dict() for i in items]}
    batch = Batch(tmp_path, manifest, BatchOptions("slurm", shards=2, cpus=2), Slurm(), "nvdla-verif")
    batch.partition(items)
    assert [len(s.items) for s in batch.shards] == [3, 2]
    settings = Settings(impl="golden")
    request = batch.resources(settings, items)
    # three tests of two layers at the golden model's floor, over two CPUs, plus start-up
    assert request.minutes == -(-(START_S + 3 * 2 * budget_s("golden", 0, 1.0) / 2) // 60)
    assert request.cpus == 2 and request.memory_mb == 4096
    fixed = Batch(tmp_path, manifest, BatchOptions("slurm", shards=2, minutes=7, memory_mb=1000), Slurm(), "x")
    fixed.partition(items)
    assert fixed.resources(settings, items).minutes == 7 and fixed.resources(settings, items).memory_mb == 1000


@pytest.mark.parametrize("text, total", [("UNLIMITED", None), ("30", 30), ("1:00:00", 60), ("2-00:00:00", 2880),
                                         ("1-12", 2160), ("0:30", 1), ("00:45:30", 46)])
def test_slurm_times(text, total):
    assert slurm_minutes(text) == total
