"""Sentences whose only feature is their opening chain (no antecedent word in them) share it
with unrelated sentences that open the same way: such a pair alone is no copy."""

from __future__ import annotations

from detection import analyze, compare

# Each of these sentences has one feature, the chain of its first words ("只是由于").
OPENS_ALIKE_A = (
    "今天天气很好，我们去公园散步。这座举世闻名的美人鱼雕像的头部曾于１９６４年被人盗走，"
    "其胳膊又于１９８５年被人锯掉。只是由于铸造雕像的模子保存完好，美人鱼才得以恢复原形。"
    "后来大家都回家了。\n"
)
OPENS_ALIKE_B = (
    "我国古代的学者，早就提出过“左图右史”的理想，希望用直观的图像来补充文字描述的不足。"
    "只是由于当时材料、技术条件的限制，这种愿望无法充分实现。近代各类文物发现众多。\n"
)


def test_the_shared_opening_is_the_only_feature_of_both_sentences():
    a = next(s for s in analyze(OPENS_ALIKE_A).sentences if s.start == OPENS_ALIKE_A.index("只是"))
    b = next(s for s in analyze(OPENS_ALIKE_B).sentences if s.start == OPENS_ALIKE_B.index("只是"))
    assert len(a.features) == len(b.features) == 1 and a.features == b.features


def test_sentences_sharing_only_their_opening_are_not_a_copy():
    assert compare(OPENS_ALIKE_B, OPENS_ALIKE_A) == []


def test_list_numbers_in_english_do_not_match_a_chinese_list():
    english = (
        "Questions for the interview:\n- - 2.) What is your name? - - 3.) Take Care! - - 4.) "
        "See you soon.\nThat was all for today, thanks for reading this short note.\n"
    )
    chinese = (
        "企业分为四类：１．单一产品企业，指单项产品销售收入占企业销售总额的９５％以上；"
        "２．主导产品企业，指单项产品销售收入占企业销售额的７０％—９５％；３．相关联多元化企业，"
        "指多元化扩展到其他相关领域后，没有任何单项产品的销售收入能占到销售总额的７０％；"
        "４．无关联多元化企业。\n"
    )
    assert compare(english, chinese) == []


def test_a_short_sentence_really_copied_is_still_found():
    """The same one-feature sentence copied word for word: its words agree, so it stays."""
    copied = "只是由于铸造雕像的模子保存完好，美人鱼才得以恢复原形。"
    mine = "我今天写了一篇短文。" + copied + "我们明天再见吧朋友们。\n"
    [passage] = compare(mine, OPENS_ALIKE_A)
    assert mine[passage.start : passage.end].startswith(copied)


def test_a_copied_list_of_one_word_lines_is_found_across_its_lines():
    """Each line is a weak pair on its own; the words agree across them."""
    items = "\nApples.\nBananas.\nCherries.\nDates.\nFigs.\n"
    mine = "My shopping list for the week." + items + "That is all I need, said my grandmother."
    theirs = "Totally different text about rivers and mountains." + items + "The end."
    [passage] = compare(mine, theirs)
    assert mine[passage.start : passage.end].strip().startswith("Apples.")
