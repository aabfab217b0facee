"""A source paragraph copied twice into one document: both passages can be followed on both
sides of the report (the review's case: only the first had a target on the source side)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from documents import services
from documents.highlight import highlight_html
from tests.documents.factories import DATA, processed
from tests.documents.test_browser import driver  # noqa: F401 - headless Chromium

REPORT_JS = Path(__file__).resolve().parents[2] / "static" / "js" / "report.js"


def repeated_copy() -> tuple[str, str]:
    """(source, student): the source's copied paragraph twice, between unrelated text."""
    source = (DATA / "zh_source.txt").read_text(encoding="utf-8")
    own = (DATA / "zh_unrelated.txt").read_text(encoding="utf-8")
    paragraph = source[335:592]
    student = "\n".join([own[:600], paragraph, own[600:1200], paragraph, own[1200:1800]])
    return source, student


@pytest.mark.django_db
def test_each_passage_of_a_repeated_copy_has_a_target_on_both_sides(browser, owner):
    collection = services.collection_create(owner=owner, name="Repeat")
    source_text, student_text = repeated_copy()
    source = processed(collection, "source.txt", source_text.encode())
    student = processed(collection, "student.txt", student_text.encode())
    page = browser.get(f"/documents/{student.id}/report/?source={source.id}").content.decode()
    passages = re.findall(r'class="jump"', page)
    assert len(passages) == 2, "the paragraph is found twice"
    for number in range(len(passages)):
        assert page.count(f'id="q-{number}"') == 1 and page.count(f'id="s-{number}"') == 1
    source_pane = page.split('id="source-text"')[1]
    assert re.search(r'<mark [^>]*data-pairs="0 1"', source_pane)


def static_report(tmp_path: Path) -> Path:
    """The report's side-by-side markup with the real script, as a file (no server)."""
    source, student = repeated_copy()
    first, second = student.index(source[335:592]), student.rindex(source[335:592])
    query_ranges = [(first, first + 257), (second, second + 257)]
    links = "".join(
        f'<li><a href="#q-{n}" data-pair="{n}" class="jump" id="link-{n}">{n}</a></li>'
        for n in range(2)
    )
    page = f"""<!doctype html><meta charset="utf-8">
<style>.text {{ height: 200px; overflow: auto; white-space: pre-wrap; width: 400px; }}</style>
<ol class="passages">{links}</ol>
<div class="side-by-side">
<div class="text" id="query-text">{highlight_html(student, query_ranges, side="q")}</div>
<div class="text" id="source-text">{highlight_html(source, [(335, 592)] * 2, side="s")}</div>
</div>
<script src="{REPORT_JS.as_uri()}"></script>"""
    path = tmp_path / "report.html"
    path.write_text(page, encoding="utf-8")
    return path


def test_a_shared_source_mark_leads_to_each_copy_in_turn(tmp_path, driver):  # noqa: F811
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    driver.get(static_report(tmp_path).as_uri())
    query = driver.find_element(By.ID, "query-text")

    def shows(anchor_id):
        """Whether the query pane has scrolled so that the anchor is in its upper half."""
        return driver.execute_script(
            "var a = document.getElementById(arguments[0]), p = arguments[1];"
            "var top = a.getBoundingClientRect().top - p.getBoundingClientRect().top;"
            "return top >= 0 && top < p.clientHeight / 2;",
            anchor_id,
            query,
        )

    shared = driver.find_element(By.CSS_SELECTOR, '#source-text mark[data-pairs="0 1"]')
    shared.click()
    WebDriverWait(driver, 10).until(lambda _: shows("q-0") and not shows("q-1"))
    shared.click()
    WebDriverWait(driver, 10).until(lambda _: shows("q-1") and not shows("q-0"))

    # From the passage list, passage 2 reaches its own marks on both sides.
    driver.find_element(By.ID, "link-1").click()
    second = driver.find_element(By.CSS_SELECTOR, '#query-text mark[data-pairs="1"]')
    WebDriverWait(driver, 10).until(lambda _: "focus" in (shared.get_attribute("class") or ""))
    assert "focus" in (second.get_attribute("class") or "")
