"""In a real browser (headless Chromium): log in, create a collection, upload two files,
wait for the real worker, open the report and follow a highlighted passage; and the
collection page following an upload's rows as they finish, summary line included; an
archive's page following a bulk import."""

from __future__ import annotations

import shutil

import pytest

from tests.documents.factories import DATA, intercept_task

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
FLAGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1400,1000",
]


@pytest.fixture
def driver(tmp_path):
    if not (shutil.which(CHROMIUM) and shutil.which(CHROMEDRIVER)):
        pytest.skip("chromium and chromium-driver are not installed (apt install them)")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in [*FLAGS, f"--user-data-dir={tmp_path / 'chromium-profile'}"]:
        options.add_argument(flag)
    browser = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    try:
        yield browser
    finally:
        browser.quit()


def submit(driver, element):
    """Click something that loads a new page and wait until it has replaced this one.

    Asked about the old page while the new one replaces it, chromedriver may answer "Node
    with given id does not belong to the document" instead of a stale element: the wait asks
    again (a page that never goes still fails after 30 s)."""
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions
    from selenium.webdriver.support.ui import WebDriverWait

    page = driver.find_element(By.TAG_NAME, "html")
    element.click()
    WebDriverWait(driver, 30, ignored_exceptions=[WebDriverException]).until(
        expected_conditions.staleness_of(page)
    )


def log_in(driver, live_server, username, password):
    from selenium.webdriver.common.by import By

    driver.get(f"{live_server.url}/accounts/login/")
    driver.find_element(By.NAME, "username").send_keys(username)
    driver.find_element(By.NAME, "password").send_keys(password)
    submit(driver, driver.find_element(By.CSS_SELECTOR, "form button[type=submit]"))


def test_a_user_uploads_and_reads_the_highlighted_report(
    celery_worker, live_server, driver, django_user_model
):
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    django_user_model.objects.create_user(username="reader", password="reader-pass")
    log_in(driver, live_server, "reader", "reader-pass")

    driver.find_element(By.NAME, "name").send_keys("Browser essays")
    submit(driver, driver.find_element(By.XPATH, "//button[text()='Create']"))
    assert "Browser essays" in driver.find_element(By.TAG_NAME, "h1").text

    files = "\n".join(str(DATA / name) for name in ("zh_source.txt", "zh_suspicious.txt"))
    driver.find_element(By.CSS_SELECTOR, "input[type=file][name=files]").send_keys(files)
    submit(driver, driver.find_element(By.ID, "upload-button"))

    def all_done(browser):
        rows = browser.find_elements(By.CSS_SELECTOR, "tr[data-document]")
        return len(rows) == 2 and all(r.get_attribute("data-status") == "done" for r in rows)

    WebDriverWait(
        driver, 240, poll_frequency=0.5, ignored_exceptions=[StaleElementReferenceException]
    ).until(all_done)
    # The upload's message stays on the page (no automatic reload); a link shows the results.
    WebDriverWait(driver, 10).until(lambda b: b.find_elements(By.CSS_SELECTOR, "#results-ready a"))
    assert "queued for checking" in driver.find_element(By.CSS_SELECTOR, ".messages").text
    # Before that reload, the rows and the summary line read as the reloaded page will.
    assert driver.find_element(By.ID, "status-counts").text == "2 documents: 2 done."
    assert [c.text for c in driver.find_elements(By.CSS_SELECTOR, "#documents .status")] == [
        "Done",
        "Done",
    ]
    similarities = driver.find_elements(By.CSS_SELECTOR, "#documents td.similarity a")
    assert len(similarities) == 2 and all(a.text.endswith("%") for a in similarities)
    submit(driver, driver.find_element(By.CSS_SELECTOR, "#results-ready a"))
    assert driver.find_elements(By.CSS_SELECTOR, "#documents a[href*='/report/']")

    submit(driver, driver.find_element(By.LINK_TEXT, "zh_suspicious.txt"))
    submit(driver, driver.find_element(By.ID, "report-link"))
    # The match overview first; its source opens side by side.
    assert "zh_source.txt" in driver.find_element(By.ID, "overview-sources").text
    assert driver.find_elements(By.CSS_SELECTOR, "#overview-text mark.c0")
    submit(driver, driver.find_element(By.CSS_SELECTOR, "#overview-sources a"))
    assert "zh_source.txt" in driver.find_element(By.ID, "sources").text
    left = driver.find_elements(By.CSS_SELECTOR, "#query-text mark")
    right = driver.find_elements(By.CSS_SELECTOR, "#source-text mark")
    assert left and right
    first_left = driver.find_element(By.ID, "q-0")
    first_right = driver.find_element(By.ID, "s-0")
    assert first_left.get_attribute("class") == first_right.get_attribute("class")
    assert first_left.text.strip() and first_left.text.strip() in first_right.text

    first_left.click()
    WebDriverWait(driver, 10).until(lambda b: "focus" in first_right.get_attribute("class"))


def test_the_collection_page_follows_an_upload_until_every_document_is_finished(
    live_server, driver, owner, assignment, monkeypatch, tmp_path
):
    """No worker: the test moves the uploaded documents on itself and watches the page
    (never reloaded: the upload's message stays) show each step as a reload would."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    from documents.models import Document
    from documents.tasks import document_process_task

    intercept_task(monkeypatch, document_process_task.name, lambda *_, **__: None)
    log_in(driver, live_server, "owner", "owner-pass")
    driver.get(f"{live_server.url}/collections/{assignment.id}/")
    paths = []
    for name in ("a.txt", "b.txt", "c.txt"):
        (tmp_path / name).write_text(f"The essay {name} has a sentence of its own.\n")
        paths.append(str(tmp_path / name))
    driver.find_element(By.CSS_SELECTOR, "input[type=file][name=files]").send_keys("\n".join(paths))
    submit(driver, driver.find_element(By.ID, "upload-button"))

    def summary():
        return driver.find_element(By.ID, "status-counts").text

    def cell(document, selector):
        row = driver.find_element(By.CSS_SELECTOR, f"tr[data-document='{document.id}']")
        return row.find_element(By.CSS_SELECTOR, selector)

    def until(condition):
        WebDriverWait(driver, 15, poll_frequency=0.2).until(lambda _: condition())

    assert summary() == "3 documents: 0 done, 3 queued."
    a, b, c = Document.objects.filter(collection=assignment).order_by("filename")
    Document.objects.filter(id=a.id).update(status="done", progress=100, similarity=0.4237)
    Document.objects.filter(id=b.id).update(status="processing", progress=40)
    until(lambda: summary() == "3 documents: 1 done, 1 queued, 1 processing.")
    assert (cell(a, ".status").text, cell(b, ".status").text) == ("Done", "Processing")
    assert cell(b, "progress").get_attribute("value") == "40"
    link = cell(a, "td.similarity a")
    assert link.text == "42.4%"
    assert link.get_attribute("href") == f"{live_server.url}/documents/{a.id}/report/"
    assert not driver.find_elements(By.ID, "results-ready")  # c is still queued

    Document.objects.filter(id=b.id).update(status="done", progress=100, similarity=0.0)
    Document.objects.filter(id=c.id).update(status="failed", error="Not a document (.exe).")
    until(lambda: driver.find_elements(By.CSS_SELECTOR, "#results-ready a"))
    ready = driver.find_element(By.CSS_SELECTOR, "#results-ready a")
    assert ready.text == "Results are ready (1 failed): show them"
    assert summary() == "3 documents: 2 done, 1 failed."
    assert cell(b, "td.similarity a").text == "0.0%"
    assert cell(c, ".status").text == "Failed"
    assert cell(c, ".failure").text == "Not a document (.exe)."
    assert (
        "3 file(s) queued for checking." in driver.find_element(By.CSS_SELECTOR, ".messages").text
    )


def test_an_archive_page_follows_a_bulk_import(
    live_server, driver, owner, archive, monkeypatch, tmp_path
):
    """No worker: the test moves the import on itself and watches the page follow it."""
    import io
    import zipfile

    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    from documents.models import ArchiveImport
    from documents.tasks import archive_import_task

    intercept_task(monkeypatch, archive_import_task.name, lambda *_, **__: None)
    log_in(driver, live_server, "owner", "owner-pass")
    driver.get(f"{live_server.url}/collections/{archive.id}/")
    batch = io.BytesIO()
    with zipfile.ZipFile(batch, "w") as package:
        for name in ("a.txt", "b.txt", "c.txt"):
            package.writestr(name, f"The article {name} has a sentence of its own.\n")
    zip_path = tmp_path / "published.zip"
    zip_path.write_bytes(batch.getvalue())
    driver.find_element(By.CSS_SELECTOR, "input[type=file][name=files]").send_keys(str(zip_path))
    assert driver.find_element(By.NAME, "bulk").is_selected()  # the archive's default
    submit(driver, driver.find_element(By.ID, "upload-button"))
    job = ArchiveImport.objects.get(collection=archive)
    item = driver.find_element(By.CSS_SELECTOR, f"li[data-import='{job.id}']")

    def until(condition):
        WebDriverWait(driver, 15, poll_frequency=0.2).until(lambda _: condition())

    assert item.find_element(By.CSS_SELECTOR, ".status").text == "Queued"
    assert item.find_element(By.CSS_SELECTOR, ".import-summary").text == "nothing read yet"
    ArchiveImport.objects.filter(id=job.id).update(status="running", files=3, imported=2)
    until(lambda: item.find_element(By.CSS_SELECTOR, ".import-summary").text
          == "3 files read: 2 imported")  # fmt: skip
    assert item.find_element(By.CSS_SELECTOR, ".status").text == "Importing"
    assert not driver.find_elements(By.ID, "results-ready")

    ArchiveImport.objects.filter(id=job.id).update(status="done", imported=3)
    until(lambda: driver.find_elements(By.CSS_SELECTOR, "#results-ready a"))
    assert driver.find_element(By.CSS_SELECTOR, "#results-ready a").text == (
        "Results are ready: show them"
    )
    assert item.find_element(By.CSS_SELECTOR, ".import-summary").text == "3 files read: 3 imported"
