"""Word-level borders cross the edits at a copy's ends (the X-drop extension of
`detection.refine`): a dropped, inserted or swapped word does not end a copy when enough words
after it agree again, and the border lands on a copied word, never on unrelated text."""

from __future__ import annotations

import pytest

from detection import compare
from detection.refine import _walk

BODY = (
    " old wooden bridge was rebuilt three times during the last century because of the water."
    " Farmers along its banks have learned to plant their crops after the spring flood."
)
SOURCE = "The village is small. The engineers say" + BODY + " Nobody remembers who built it.\n"


def _copied(query: str, source: str = SOURCE) -> str:
    [passage] = compare(query, source)
    return query[passage.start : passage.end]


def test_a_border_crosses_an_inserted_word():
    """Against "The engineers say old", "Engineers say that old" shares its first word trigram
    at "old wooden bridge"; the walk back crosses the inserted "that"."""
    query = "Our class wrote about it. Engineers say that" + BODY + " Then we had lunch.\n"
    assert _copied(query).startswith("Engineers say that old wooden bridge")


def test_a_chinese_border_crosses_a_dropped_particle_and_a_swap():
    """The copy's first sentence is edited too much to pair with its source ("的" dropped,
    "优势显著" swapped, "认为" replaced): the passage still starts inside it, after the swap
    and the dropped particle; the replaced word with one agreeing word before it is not
    enough to cross."""
    rest = (
        "自然资源富庶，交通通信发达，科技实力雄厚。内在环境使该地区具备了加快发展的基本条件，"
        "外在环境的变化也有利于该地区加快发展。同时，该地区还面临着许多矛盾的困扰。\n"
    )
    source = "会议在北京召开。与会者认为，该地区的区位优势显著，" + rest
    query = "今天天气很好。与会者觉得，该地区区位显著优势，" + rest
    assert _copied(query, source).startswith("该地区区位显著优势，自然资源富庶")


@pytest.mark.parametrize(
    ("query", "source", "taken"),
    [
        ("A B C D E F", "A B C D E F", 5),  # verbatim: to the last word
        ("A x y C D E", "A p r C D E", 5),  # two differing words, then three agreeing
        ("A x y z C D E F", "A p r t C D E F", 0),  # three differing words stop it
        ("A x C D", "A C D", 3),  # a word inserted in the query
        ("A C D", "A x C D", 2),  # a word dropped from the query
        ("A C B D E F", "A B C D E F", 5),  # two words swapped
        ("A x y C D E F", "A C D E F", 6),  # two words inserted in the query
        ("A x y z C D E F G", "A C D E F G", 0),  # three inserted words stop it
        ("A B C x the y z", "A B C p the r t", 2),  # after the copy: one shared "the"
        ("A B C x D", "A B C p q", 2),  # the border never lands on a differing word
    ],
)
def test_the_walk_crosses_edits_the_next_words_make_up_for(query, source, taken):
    q, s = query.split(), source.split()
    assert _walk(q, s, 0, 0, 1) == taken
    assert _walk(q[::-1], s[::-1], len(q) - 1, len(s) - 1, -1) == taken  # walking back
