"""Site template removal learned from a collection (period feature strings and SimHash)."""

from __future__ import annotations

import pytest

from extraction import learn_boilerplate

TOPICS = ["春运", "教育", "农业", "科技", "体育", "文化", "外交", "金融", "环保", "医疗"]
ARTICLES = [
    f"关于{topic}的报道：记者走访了当地，了解{topic}的最新情况。\n专家认为，{topic}工作取得了进展。"
    for topic in TOPICS
]


def site_page(index: int, article: str) -> str:
    return "\n".join(
        [
            "东方资讯",
            "新闻中心 > 滚动 > 正文",
            f"来源：新华社  1998-01-{index + 1:02d}  编辑：{'张华' if index % 2 else '李明'}",
            article,
            "分享到：微信 微博 QQ空间",
            f"版权所有 © 2005-{2010 + index} 东方资讯 未经授权禁止转载",
            f"相关新闻：第{index * 7}条",
        ]
    )


PAGES = [site_page(i, article) for i, article in enumerate(ARTICLES)]


def test_template_lines_are_removed_and_article_lines_kept():
    boilerplate = learn_boilerplate(PAGES)
    for page, article in zip(PAGES, ARTICLES, strict=True):
        assert boilerplate.strip(page) == article


def test_lines_that_differ_only_in_digits_or_spacing_are_one_template_line():
    boilerplate = learn_boilerplate(PAGES)
    assert boilerplate.is_boilerplate("版权所有 © 2005-2099 东方资讯  未经授权禁止转载")


def test_labelled_lines_are_matched_by_their_label():
    boilerplate = learn_boilerplate(PAGES)
    assert boilerplate.is_boilerplate("来源：人民日报 1998-02-01 编辑：王芳")
    assert not boilerplate.is_boilerplate(
        "来源于生活的一段很长的正文，" * 5
    )  # not a short label line


def test_a_paragraph_shared_by_a_few_pages_is_not_boilerplate():
    # A story reprinted in 2 of 10 pages must survive: that is what the detector looks for.
    shared = "这一段被两篇文章同时转载，是需要检测的复制内容。"
    pages = [page + ("\n" + shared if i < 2 else "") for i, page in enumerate(PAGES)]
    assert shared in learn_boilerplate(pages).strip(pages[0])


def test_long_lines_differing_only_in_numbers_are_content():
    report = (
        "今日上证指数收于{}点，成交金额{}亿元，沪深两市共有{}只股票上涨，"
        "市场情绪有所回暖，分析人士认为后市仍将震荡。"
    )
    pages = [report.format(3000 + i, 200 + i, 1000 + i) for i in range(10)]
    boilerplate = learn_boilerplate(pages)
    assert boilerplate.keys == frozenset()


def test_too_few_documents_learn_nothing():
    boilerplate = learn_boilerplate(PAGES[:2])
    assert boilerplate.keys == frozenset()
    assert boilerplate.strip(PAGES[0]) == PAGES[0]


def test_min_share_controls_how_common_a_line_must_be():
    half = [page + "\n本站声明：仅供参考" if i % 2 else page for i, page in enumerate(PAGES)]
    assert learn_boilerplate(half, min_share=0.5).is_boilerplate("本站声明：仅供参考")
    assert not learn_boilerplate(half, min_share=0.6).is_boilerplate("本站声明：仅供参考")


@pytest.mark.parametrize(("share", "docs"), [(0.0, 3), (1.5, 3), (0.5, 1)])
def test_bad_parameters_are_rejected(share, docs):
    with pytest.raises(ValueError):
        learn_boilerplate(PAGES, min_share=share, min_docs=docs)
