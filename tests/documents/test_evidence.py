"""The evidence report: a PDF and a self-contained HTML file of a document's report, with its
name, SHA-256, settings, similarities, highlighted text (Chinese included) and excerpts."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from tests.documents.factories import processed

pytestmark = pytest.mark.django_db

ORIGINAL = (
    "长江是中国最长的河流，全长约六千三百公里，流经十一个省市自治区。"
    "长江流域是中国经济最发达的地区之一，沿岸分布着许多重要的工业城市。"
    "三峡工程是世界上规模最大的水利枢纽工程，具有防洪、发电和航运等综合效益。"
    "近年来，长江的生态保护受到了越来越多的关注，政府实施了十年禁渔计划。"
)
COPIER = (
    "我的家乡在湖北省的一个小镇上，镇子旁边就是一条宽阔的大河。\n"
    "三峡工程是世界上规模最大的水利枢纽工程，具有防洪、发电和航运等综合效益。"
    "近年来，长江的生态保护受到了越来越多的关注，政府实施了十年禁渔计划。\n"
    "正如作者所说：“长江是中国最长的河流，全长约六千三百公里，流经十一个省市自治区。”\n"
    "每年夏天，我和朋友们都会去河边钓鱼、游泳，那是我童年最快乐的时光。"
)


@pytest.fixture
def copier(assignment, archive):
    processed(archive, "长江.txt", ORIGINAL.encode())
    return processed(assignment, "作文.txt", COPIER.encode())


def pdf_text(data: bytes, tmp_path) -> str:
    if shutil.which("pdftotext") is None:
        pytest.fail("pdftotext is missing: scripts/setup.sh installs poppler-utils")
    path = tmp_path / "report.pdf"
    path.write_bytes(data)
    return subprocess.run(
        ["pdftotext", "-layout", str(path), "-"], capture_output=True, check=True, text=True
    ).stdout


def test_the_pdf_names_the_document_its_checksum_and_holds_the_chinese_text(api, copier, tmp_path):
    answer = api.get(f"/api/documents/{copier.id}/report.pdf")
    assert answer.status_code == 200
    assert answer["Content-Type"] == "application/pdf"
    assert answer.content.startswith(b"%PDF")
    text = pdf_text(answer.content, tmp_path)
    flat = re.sub(r"\s+", "", text)
    assert "作文.txt" in text and "长江.txt" in text
    assert copier.checksum in flat
    assert "三峡工程是世界上规模最大的水利枢纽工程" in flat  # the text, laid out in CJK glyphs
    assert "quoted" in text  # the quotation, left out, says why
    assert copier.model_version in flat


def test_the_pdf_follows_the_report_toggles(api, copier, tmp_path):
    counted = api.get(f"/api/documents/{copier.id}/report/?exclude_quotes=0").json()
    answer = api.get(f"/api/documents/{copier.id}/report.pdf?exclude_quotes=0")
    text = pdf_text(answer.content, tmp_path)
    assert "quotes: no" in text
    assert f"{counted['similarity'] * 100:.1f}%" in text


def test_the_html_is_one_self_contained_file(api, copier):
    answer = api.get(f"/api/documents/{copier.id}/report.html")
    assert answer.status_code == 200
    page = answer.content.decode()
    assert copier.checksum in page and "三峡工程" in page
    assert "<style>" in page
    for external in ("<link", "<script", "src=", "@import", "url("):
        assert external not in page


def test_each_passage_says_its_kind_and_score_in_words_under_a_legend(api, copier):
    report = api.get(f"/api/documents/{copier.id}/report/").json()
    passage = report["sources"][0]["passages"][0]
    page = api.get(f"/api/documents/{copier.id}/report.html").content.decode()
    name = {"verbatim": "Verbatim copy", "edited": "Edited copy", "summary": "Summary"}
    assert f"{name[passage['kind']]}, {round(passage['score'] * 100)}% alike" in page
    assert 'id="kinds-legend"' in page and "copied word for word" in page
    assert "score 0." not in page and "score 1." not in page


def test_a_stranger_gets_no_evidence_report(client, stranger, copier):
    client.force_login(stranger)
    assert client.get(f"/api/documents/{copier.id}/report.pdf").status_code == 404
    assert client.get(f"/api/documents/{copier.id}/report.html").status_code == 404


def test_an_unprocessed_document_has_no_evidence_report(api, assignment):
    from tests.documents.factories import upload

    queued = upload(assignment, "queued.txt", b"Nothing has been read of this file yet.")
    assert api.get(f"/api/documents/{queued.id}/report.pdf").status_code == 409


def test_a_long_text_keeps_only_the_stretches_near_its_passages():
    from documents import evidence
    from documents.selectors import PassageView, SourceView

    text = "x" * 30_000 + "COPIED PASSAGE" + "y" * 40_000
    source = SourceView(
        document=1, title="s.txt", collection="c", similarity=0.1,
        passages=(PassageView(30_000, 30_014, 0, 14, 1.0),),
    )  # fmt: skip
    html = evidence._text_html(text, (source,), ())
    assert "COPIED PASSAGE" in html and "[1]" in html
    assert "characters without matches" in html
    assert len(html) < 5_000


def test_the_report_toggles_refuse_bad_values(api, copier):
    for query in ("exclude_quotes=maybe", "min_match_words=-3", "exclude_source=a,b"):
        answer = api.get(f"/api/documents/{copier.id}/report.pdf?{query}")
        assert answer.status_code == 400, query


def test_the_evidence_report_shows_the_verdicts_in_force_with_who_and_when(api, owner, copier):
    from documents import services
    from documents.models import Match

    source_id = Match.objects.get(document=copier).source_id
    services.verdict_record(
        document=copier, source_id=source_id, value="not_copying", author=owner, note="cited"
    )
    services.verdict_record(
        document=copier, source_id=source_id, value="confirmed", author=owner, note="same words"
    )
    html = api.get(f"/api/documents/{copier.id}/report.html").content.decode()
    verdicts = html[html.index('id="verdicts"') :]
    verdicts = verdicts[: verdicts.index("</table>")]
    assert "长江.txt" in verdicts and "Copying confirmed" in verdicts
    assert "same words" in verdicts and owner.username in verdicts
    assert "cited" not in verdicts  # the earlier verdict is history, not in force
