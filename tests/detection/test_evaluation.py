"""PAN measures (Potthast et al. 2010) on hand-computed cases."""

import math

import pytest

from detection.evaluation import Scores, Span, read_features, score

PAIR = ("suspicious-document00001.txt", "source-document00001.txt")


def span(a, b, c, d, pair=PAIR):
    return Span(pair, a, b, c, d)


def test_a_perfect_detection_scores_one():
    result = score([span(0, 100, 0, 100)], [span(0, 100, 0, 100)])
    assert (result.precision, result.recall, result.granularity, result.plagdet) == (1, 1, 1, 1)


def test_half_overlapping_detection():
    # 50 of 100 characters on both sides: |s ⊓ r| = 100 of |s| = |r| = 200.
    result = score([span(0, 100, 0, 100)], [span(50, 150, 50, 150)])
    assert result.precision == pytest.approx(0.5)
    assert result.recall == pytest.approx(0.5)
    assert result.plagdet == pytest.approx(0.5)


def test_a_case_found_in_two_pieces_has_granularity_two():
    result = score([span(0, 100, 0, 100)], [span(0, 50, 0, 50), span(50, 100, 50, 100)])
    assert (result.precision, result.recall, result.granularity) == (1, 1, 2)
    assert result.plagdet == pytest.approx(1 / math.log2(3))


def test_overlap_on_one_side_only_does_not_detect():
    result = score([span(0, 100, 0, 100)], [span(0, 100, 500, 600)])
    assert (result.precision, result.recall, result.plagdet) == (0, 0, 0)


def test_one_of_two_cases_found():
    result = score([span(0, 100, 0, 100), span(200, 300, 200, 300)], [span(0, 100, 0, 100)])
    assert result.recall == pytest.approx(0.5)
    assert result.precision == 1
    assert result.plagdet == pytest.approx(2 * 0.5 / 1.5)


def test_detection_larger_than_the_case():
    # Case 100+100 chars inside a detection of 200+100 chars.
    result = score([span(100, 200, 0, 100)], [span(0, 200, 0, 100)])
    assert result.recall == 1
    assert result.precision == pytest.approx(200 / 300)


def test_detections_of_another_pair_do_not_count():
    other = ("suspicious-document00002.txt", "source-document00001.txt")
    result = score([span(0, 100, 0, 100)], [span(0, 100, 0, 100, pair=other)])
    assert result.plagdet == 0


def test_empty_sides_follow_the_pan_script():
    assert score([], []).plagdet == 1
    assert score([], [span(0, 10, 0, 10)]).plagdet == 0
    assert score([span(0, 10, 0, 10)], []).plagdet == 0


def test_plagdet_formula():
    assert Scores(0.8, 0.6, 1.5).plagdet == pytest.approx((2 * 0.48 / 1.4) / math.log2(2.5))


def test_it_reads_pan_xml(tmp_path):
    path = tmp_path / "x.xml"
    path.write_text(
        '<document reference="suspicious-document00001.txt">\n'
        '<feature name="plagiarism" this_offset="5" this_length="10" '
        'source_reference="source-document00001.txt" source_offset="7" source_length="3" />\n'
        "</document>\n",
        encoding="utf-8",
    )
    assert read_features(path, PAIR) == [span(5, 15, 7, 10)]
    assert read_features(tmp_path / "missing.xml", PAIR) == []
