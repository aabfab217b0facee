import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from detection.neardup import METHODS, DWDCSConfig, cluster_documents
from detection.neardup.dwdcs import DWDCS


def make(name):
    # DWDCS without WordNet: these texts hold no real English words worth a look-up.
    return DWDCS(DWDCSConfig(use_wordnet=False)) if name == "dwdcs" else METHODS[name]()


TEXTS = st.text(alphabet="的是了。，.?!\n 甲乙丙丁戊abc12", max_size=60)


@pytest.mark.parametrize("name", sorted(METHODS))
@settings(max_examples=40, deadline=None)
@given(a=TEXTS, b=TEXTS)
def test_any_text_signs_and_relates_without_error(name, a, b):
    method = make(name)
    sig_a, sig_b = method.signature(a), method.signature(b)
    forward, backward = method.relation(sig_a, sig_b), method.relation(sig_b, sig_a)
    assert forward.kind == backward.kind
    assert 0.0 <= forward.score <= 1.0


@pytest.mark.parametrize("name", sorted(METHODS))
def test_empty_collection_and_empty_documents(name):
    assert cluster_documents(make(name), {}) == []
    clusters = cluster_documents(make(name), {1: "", 2: "   ", 3: "。。。"})
    assert sorted(m.doc_id for c in clusters for m in c.members) == [1, 2, 3]
    assert len(clusters) == 3  # documents without content are near-duplicates of nothing


@pytest.mark.parametrize("name", sorted(METHODS))
def test_signatures_survive_pickling(name, collection):
    import pickle

    method = make(name)
    method.fit(collection.values())
    sig = method.signature(collection[0])
    again = pickle.loads(pickle.dumps(sig))
    assert method.relation(again, method.signature(collection[1])) == method.relation(
        sig, method.signature(collection[1])
    )


def test_signature_version_changes_with_any_threshold():
    from detection.neardup import PeriodConfig, PeriodFeatures, signature_version

    default = signature_version(PeriodFeatures())
    assert default == signature_version(PeriodFeatures())
    assert default != signature_version(PeriodFeatures(PeriodConfig(min_ccs=0.31)))
    assert default.startswith("periods1-")
