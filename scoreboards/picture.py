"""The picture of a mismatch report (matplotlib, the `report` extra)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from golden.errors import NvdlaVerifError


def draw(report, path: Path) -> Path:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ModuleNotFoundError:
        raise NvdlaVerifError("mismatch pictures need matplotlib: pip install -e '.[report]'") from None
    figure, (by_channel, by_plane) = plt.subplots(1, 2, figsize=(10, 3.6))
    counts = report.per_channel if report.per_channel is not None else np.zeros(1)
    by_channel.bar(np.arange(counts.size), counts, width=1.0, color="tab:red")
    by_channel.set(title="mismatching elements per channel", xlabel="C", ylabel="count")
    plane = report.per_plane if report.per_plane is not None else np.zeros((1, 1))
    image = by_plane.imshow(plane, cmap="Reds", interpolation="nearest", aspect="auto")
    by_plane.set(title="per (H, W), summed over channels", xlabel="W", ylabel="H")
    figure.colorbar(image, ax=by_plane)
    figure.suptitle(f"{report.title}: {report.mismatches} of {report.compared} mismatch "
                    f"({report.cube_text()})", fontsize=10)
    figure.tight_layout()
    figure.savefig(path, dpi=90)
    plt.close(figure)
    return path
