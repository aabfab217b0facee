from detection.neardup.imatch import IMatch
from detection.neardup.shingling import Shingling, shingles
from detection.neardup.spotsigs import SpotSigs, spot_signatures

ENGLISH = (
    "The minister said the new budget was approved by parliament on Monday. "
    "There is a plan to spend more on schools and hospitals, the minister said. "
    "Critics have argued that the budget is too optimistic about growth."
)


def test_shingles_are_word_kgrams():
    assert shingles(["a", "b", "c", "d"], 3) == {"a b c", "b c d"}


def test_minhash_tells_duplicate_from_containment(collection):
    method = Shingling()
    method.fit(collection.values())
    sig = {d: method.signature(t) for d, t in collection.items()}
    assert method.relation(sig[0], sig[1]).kind == "duplicate"
    assert method.relation(sig[0], sig[3]).kind == "containment"
    assert method.relation(sig[0], sig[4]).kind == "different"
    index = method.new_index()
    for d in (1, 4, 5):
        index.add(d, sig[d])
    assert 1 in index.candidates(sig[0])


def test_imatch_is_exact_on_the_filtered_term_set():
    method = IMatch()
    base = method.signature(ENGLISH)
    assert method.signature(ENGLISH.upper()) == base  # case folds away
    # "the"/"a" are too frequent to be kept: dropping one does not change the hash
    assert method.signature(ENGLISH.replace("a plan", "plan")) == base
    assert method.signature(ENGLISH.replace("hospitals", "clinics")) != base


def test_spot_signatures_chain_the_words_after_a_stopword():
    tokens = "the minister said the budget was approved".split()
    # "said" and "was" are antecedents themselves, so chains skip them
    assert spot_signatures(tokens, chain=2) == {
        "the:minister:budget",
        "said:budget:approved",
        "the:budget:approved",
    }


def test_spotsigs_length_pruning_skips_much_longer_documents():
    method = SpotSigs()
    short = method.signature(ENGLISH)
    padded = method.signature(ENGLISH + " " + " ".join(f"the item{i} was sold" for i in range(40)))
    index = method.new_index()
    index.add(1, short)
    index.add(2, padded)
    assert index.candidates(short) == {1}
    assert method.relation(short, short).kind == "duplicate"
