"""The benchmark archive's composed analyses: terms as a real analysis has them."""

from benchmarks import corpus
from detection import analyze
from detection.config import TERM_RETRIEVAL_CONFIG

TEXTS = (
    "Glaciers in the northern mountains retreated. Meltwater feeds the rivers below.\n\n"
    "Farmers depend on that water. Engineers built reservoirs for the villages.",
    "The orchestra rehearsed the symphony. The conductor asked the violins to play softly.\n\n"
    "Critics praised the performance. The audience applauded for ten minutes.",
)


def bases():
    return [
        corpus.BaseDocument(str(n), t, analyze(t, TERM_RETRIEVAL_CONFIG))
        for n, t in enumerate(TEXTS)
    ]


def test_a_composed_variant_has_the_terms_of_a_real_analysis_of_its_text():
    documents = bases()
    made = corpus.compose([(documents[0], 0, 1), (documents[1], 2, 3), (documents[0], 3, 3)])
    real = analyze(made.text, TERM_RETRIEVAL_CONFIG)
    assert made.analysis.terms == real.terms != ()
    assert corpus.composed_term_agreement(made.analysis, real) == 1.0


def test_rekeying_maps_terms_one_to_one_and_keeps_the_common_ones():
    analysis = bases()[0].analysis
    common = frozenset([analysis.terms[0][0]])
    keyed = corpus.rekey(analysis, 3, keep_terms=common)
    old, new = dict(analysis.terms), dict(keyed.terms)
    assert len(new) == len(old) and sorted(new.values()) == sorted(old.values())
    assert set(new) & set(old) == common
    assert corpus.rekey(analysis, 3, keep_terms=common).terms == keyed.terms  # deterministic


def test_without_term_retrieval_a_composed_variant_has_no_terms():
    documents = [corpus.BaseDocument(str(n), t, analyze(t)) for n, t in enumerate(TEXTS)]
    made = corpus.compose([(documents[0], 0, 1), (documents[1], 2, 3)])
    assert made.analysis.terms == analyze(made.text).terms == ()
