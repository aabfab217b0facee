"""In a real browser (headless Chromium) with the real worker: open a collection's
near-duplicate page, start a run with the default method, read the cluster and open a pair."""

from __future__ import annotations

import os

import pytest

from documents import services as document_services
from documents.models import Document
from documents.services import document_upload
from tests.dedup.conftest import STORY_0, STORY_5
from tests.documents.factories import wait_until_finished
from tests.documents.test_browser import (
    driver,  # noqa: F401 - headless Chromium
    submit,
)


@pytest.mark.django_db(transaction=True)
def test_a_user_deduplicates_a_collection_and_opens_a_pair(
    celery_worker,
    live_server,
    driver,  # noqa: F811
    django_user_model,
    reprints,
):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    user = django_user_model.objects.create_user(username="editor", password="editor-pass")
    collection = document_services.collection_create(owner=user, name="Reprints")
    pages = {
        name: document_upload(
            collection=collection, filename=name, data=(reprints / name).read_bytes()
        )
        for name in (*STORY_0, STORY_5[0])
    }
    finished = wait_until_finished(
        lambda i: {"status": Document.objects.get(id=i).status}, [p.id for p in pages.values()]
    )
    assert {body["status"] for body in finished.values()} == {"done"}

    driver.get(f"{live_server.url}/accounts/login/")
    driver.find_element(By.NAME, "username").send_keys("editor")
    driver.find_element(By.NAME, "password").send_keys("editor-pass")
    submit(driver, driver.find_element(By.CSS_SELECTOR, "form button[type=submit]"))

    driver.get(f"{live_server.url}/collections/{collection.id}/dedup/")
    chosen = driver.find_element(By.CSS_SELECTOR, "select[name=method] option:checked")
    assert chosen.get_attribute("value") == "periods"
    submit(driver, driver.find_element(By.CSS_SELECTOR, "#dedup-form button[type=submit]"))
    # The page reloads itself while the run is under way.
    WebDriverWait(driver, 240, poll_frequency=0.5).until(
        lambda b: b.find_elements(By.CSS_SELECTOR, "#clusters .cluster")
    )
    if os.environ.get("DEDUP_SCREENSHOTS"):
        driver.save_screenshot(os.path.join(os.environ["DEDUP_SCREENSHOTS"], "dedup.png"))
    rows = driver.find_elements(By.CSS_SELECTOR, "#clusters .cluster tr[data-document]")
    assert {int(r.get_attribute("data-document")) for r in rows} == {
        pages[name].id for name in STORY_0
    }
    assert "duplicate" in driver.find_element(By.CSS_SELECTOR, "#clusters .cluster").text

    submit(driver, driver.find_element(By.CSS_SELECTOR, "#clusters a.pair"))
    first_left, first_right = driver.find_element(By.ID, "q-0"), driver.find_element(By.ID, "s-0")
    assert first_left.get_attribute("class") == first_right.get_attribute("class")
    # A light-edit reprint: the passages are aligned, not identical; they start alike.
    assert first_left.text.strip()[:10] in first_right.text
    if os.environ.get("DEDUP_SCREENSHOTS"):
        driver.save_screenshot(os.path.join(os.environ["DEDUP_SCREENSHOTS"], "pair.png"))
