"""Hypothesis strategies for generated layers: a failing layer shrinks towards a minimal one.

    from hypothesis import given
    from stimulus.strategies import layers

    @given(layers("pdp", get_profile("nv_small")))
    def test_something(layer): ...

Every decision of the family's generator is drawn by hypothesis (stimulus.choose.Drawn), so shrinking
moves sizes to their lower ends and choices to their first options.
"""

from __future__ import annotations

from hypothesis import strategies as st

from golden.config import Profile
from stimulus.choose import Drawn
from stimulus.families import family as declared_family


def layers(family: str, profile: Profile, count: int = 1):
    """A strategy for lists of `count` back-to-back layers of the family (one layer when count is 1)."""
    declaration = declared_family(family)

    @st.composite
    def draw(draw_fn):
        choose = Drawn(draw_fn)
        shared = declaration.share(choose, profile)
        drawn = [declaration.generator(choose, profile, slot, **shared) for slot in range(count)]
        return drawn[0] if count == 1 else drawn

    return draw()
