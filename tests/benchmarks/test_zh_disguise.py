"""The disguised Chinese generator's replacement words."""

from benchmarks.zh_disguise import _synonyms
from detection.lexicon import cilin_groups, term

WORDS = ("电脑", "学生", "医生", "提高")


def test_cilin_replacements_are_the_words_the_detector_folds_together():
    groups = cilin_groups()
    synonyms = _synonyms("cilin")
    assert "计算机" in synonyms["电脑"]
    for word in WORDS:
        assert synonyms[word]
        assert all(groups[other] == groups[word] == term(word) for other in synonyms[word])


def test_related_replacements_share_the_fine_class_but_never_the_group():
    groups = cilin_groups()
    related = _synonyms("related")
    for word in WORDS:
        assert related[word]
        for other in related[word]:
            assert groups[other][:5] == groups[word][:5]
            assert groups[other] != groups[word]
            assert term(other) != term(word)
