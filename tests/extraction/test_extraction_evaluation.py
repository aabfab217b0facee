"""Character-level precision/recall/F1 of extraction, and the command line."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from extraction.__main__ import main
from extraction.evaluation import (
    bag_overlap,
    evaluate_folder,
    lcs_length,
    lcs_overlap,
    site_of,
    strip_site_boilerplate,
    summarise,
)


def lcs_by_table(a: str, b: str) -> int:
    table = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            table[i + 1][j + 1] = (
                table[i][j] + 1 if x == y else max(table[i][j + 1], table[i + 1][j])
            )
    return table[-1][-1]


@settings(deadline=None)  # behaviour, not speed: no per-example time limit
@given(st.text(alphabet="甲乙丙ab", max_size=25), st.text(alphabet="甲乙丁ab", max_size=25))
def test_bit_parallel_lcs_equals_the_dynamic_programming_table(a, b):
    assert lcs_length(a, b) == lcs_by_table(a, b)


def test_whitespace_is_layout_not_content():
    overlap = lcs_overlap("正文 第一段\n\n第二段", "正文第一段第二段")
    assert (overlap.precision, overlap.recall) == (1.0, 1.0)


def test_lcs_punishes_wrong_order_and_bag_does_not():
    assert lcs_overlap("乙甲", "甲乙").common == 1
    assert bag_overlap("乙甲", "甲乙").common == 2


def test_extra_text_lowers_precision_missing_text_lowers_recall():
    overlap = lcs_overlap("导航正文内容", "正文内容完")
    assert overlap.common == 4
    assert overlap.precision == pytest.approx(4 / 6)
    assert overlap.recall == pytest.approx(4 / 5)


def test_micro_sums_and_macro_averages():
    scores = summarise([lcs_overlap("甲乙", "甲乙"), lcs_overlap("", "甲乙丙丁甲乙")])
    assert scores.micro_recall == pytest.approx(2 / 8)
    assert scores.macro_recall == pytest.approx(0.5)
    assert scores.macro_f1 == pytest.approx(0.5)


def test_site_of_reads_the_page_url():
    assert site_of(b'<text id="http://news.sina.com.cn/a.html" title="">') == "sina.com.cn"
    assert site_of(b'<link rel="canonical" href="https://business.sohu.com/x">') == "sohu.com"
    assert site_of(b"<html>") is None


def test_site_boilerplate_is_learned_per_site_only():
    template = "版权所有 本站"
    bodies = ["春天来了", "夏天很热", "秋天落叶"]
    pages = [("a.com", f"{body}\n{template}") for body in bodies]
    pages.append(("b.com", f"别站\n{template}"))
    stripped = strip_site_boilerplate(pages, min_share=0.5, min_docs=3)
    assert stripped[:3] == bodies
    assert stripped[3] == f"别站\n{template}"  # b.com has too few pages to learn from


@pytest.fixture
def tiny_dataset(tmp_path: Path) -> Path:
    (tmp_path / "original").mkdir()
    (tmp_path / "cleaned").mkdir()
    paragraphs = [
        f"第{i}段正文，讲述文本复制检测系统的设计与实现，足够长以便识别。" for i in range(6)
    ]
    for name in ("a", "b"):
        body = "".join(f"<p>{p}</p>" for p in paragraphs)
        page = (
            f"<html><head><meta charset='gbk'></head><body><article>{body}</article></body></html>"
        )
        (tmp_path / "original" / f"{name}.html").write_bytes(page.encode("gbk"))
        (tmp_path / "cleaned" / f"{name}.txt").write_text("\n".join(paragraphs), encoding="utf-8")
    return tmp_path


def test_evaluate_folder_scores_each_page(tiny_dataset):
    scores = evaluate_folder(tiny_dataset, lambda name, data: data.decode("gbk"))
    assert scores["lcs"].documents == 2
    assert scores["lcs"].micro_recall == 1.0
    assert scores["lcs"].micro_precision < 1.0  # raw HTML carries markup


def test_the_evaluate_command_prints_both_measures(tiny_dataset, capsys):
    assert main(["evaluate", str(tiny_dataset)]) == 0
    out = capsys.readouterr().out
    assert "lcs (2 pages)  micro P=1.000 R=1.000 F1=1.000" in out
    assert out.count("macro") == 2


def test_the_extract_command_prints_the_text(tmp_path, capsys):
    path = tmp_path / "a.txt"
    path.write_bytes("命令行输出".encode("gb18030"))
    assert main(["extract", str(path)]) == 0
    captured = capsys.readouterr()
    assert captured.out == "命令行输出\n"
    assert "encoding=gb18030" in captured.err


def test_the_extract_command_reports_errors_on_stderr(tmp_path, capsys):
    path = tmp_path / "a.pdf"
    path.write_bytes(b"not a pdf")
    assert main(["extract", str(path)]) == 1
    assert "not a real .pdf file" in capsys.readouterr().err


def test_real_chinese_pages_are_extracted_well(shared_data):
    # A floor well under the measured figures (docs/extraction.md) that catches regressions
    # such as a broken charset path or a lost fallback, not a tuned target.
    from extraction import extract

    scores = evaluate_folder(
        shared_data / "zh-web-extraction", lambda name, data: extract(name, data).text
    )
    assert scores["lcs"].documents == 69
    assert scores["lcs"].micro_f1 > 0.85
    assert scores["lcs"].macro_recall > 0.9
