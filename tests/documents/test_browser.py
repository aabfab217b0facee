"""In a real browser (headless Chromium): log in, create a collection, upload two files,
wait for the real worker, open the report and follow a highlighted passage."""

from __future__ import annotations

import shutil

import pytest

from tests.documents.factories import DATA

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


def test_a_user_uploads_and_reads_the_highlighted_report(
    celery_worker, live_server, driver, django_user_model
):
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions
    from selenium.webdriver.support.ui import WebDriverWait

    def submit(element):
        """Click something that loads a new page and wait until it has replaced this one."""
        page = driver.find_element(By.TAG_NAME, "html")
        element.click()
        WebDriverWait(driver, 30).until(expected_conditions.staleness_of(page))

    django_user_model.objects.create_user(username="reader", password="reader-pass")
    driver.get(f"{live_server.url}/accounts/login/")
    driver.find_element(By.NAME, "username").send_keys("reader")
    driver.find_element(By.NAME, "password").send_keys("reader-pass")
    submit(driver.find_element(By.CSS_SELECTOR, "form button[type=submit]"))

    driver.find_element(By.NAME, "name").send_keys("Browser essays")
    submit(driver.find_element(By.XPATH, "//button[text()='Create']"))
    assert "Browser essays" in driver.find_element(By.TAG_NAME, "h1").text

    files = "\n".join(str(DATA / name) for name in ("zh_source.txt", "zh_suspicious.txt"))
    driver.find_element(By.CSS_SELECTOR, "input[type=file][name=files]").send_keys(files)
    submit(driver.find_element(By.ID, "upload-button"))

    def all_done(browser):
        rows = browser.find_elements(By.CSS_SELECTOR, "tr[data-document]")
        return len(rows) == 2 and all(r.get_attribute("data-status") == "done" for r in rows)

    WebDriverWait(
        driver, 240, poll_frequency=0.5, ignored_exceptions=[StaleElementReferenceException]
    ).until(all_done)
    # The upload's message stays on the page (no automatic reload); a link shows the results.
    WebDriverWait(driver, 10).until(lambda b: b.find_elements(By.CSS_SELECTOR, "#results-ready a"))
    assert "queued for checking" in driver.find_element(By.CSS_SELECTOR, ".messages").text
    submit(driver.find_element(By.CSS_SELECTOR, "#results-ready a"))
    assert driver.find_elements(By.CSS_SELECTOR, "#documents a[href*='/report/']")

    submit(driver.find_element(By.LINK_TEXT, "zh_suspicious.txt"))
    submit(driver.find_element(By.ID, "report-link"))
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
