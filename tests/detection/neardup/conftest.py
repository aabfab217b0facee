"""Small hand-written documents shared by the near-duplicate tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from neardup_samples import ARTICLE_A, ARTICLE_B, ARTICLE_C, ARTICLE_D, on_site

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture
def collection() -> dict[int, str]:
    """Four stories on two sites plus reprints: 1≈0 (other site), 2 ⊂ 0 (first half), 3 = 0+D.

    Documents 4–8 are different stories on the same sites (template-only overlap).
    """
    half = "。".join(ARTICLE_A.split("。")[:3]) + "。"
    return {
        0: on_site("东方资讯", ARTICLE_A),
        1: on_site("北国在线", ARTICLE_A, "1998-01-06"),
        2: on_site("北国在线", half),
        3: on_site("中原视窗", ARTICLE_A + ARTICLE_D),
        4: on_site("东方资讯", ARTICLE_B),
        5: on_site("北国在线", ARTICLE_C),
        6: on_site("中原视窗", ARTICLE_C, "1998-01-07"),
        7: on_site("东方资讯", ARTICLE_D),
        8: on_site("北国在线", ARTICLE_B, "1998-01-09"),
    }
