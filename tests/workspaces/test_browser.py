"""In a real browser (headless Chromium): a reviewer of a department opens a report of its
assignment, records a verdict with a note, sees it with their name, and finds no upload,
settings or delete control anywhere on the way."""

from __future__ import annotations

from documents import services
from tests.documents.factories import WATER, WATER_COPIED, processed
from tests.documents.test_browser import driver, log_in, submit  # noqa: F401
from workspaces import services as workspace_services

WRITE_CONTROLS = (
    "#upload-button",
    "input[type=file]",
    "#collection-settings",
    "#delete-collection",
    "#check-all",
    "button.danger",
    "form[action$='/delete/']",
    "form[action$='/recheck/']",
)


def test_a_reviewer_records_a_verdict_and_has_no_upload_or_delete_control(
    live_server,
    driver,  # noqa: F811
    owner,
    django_user_model,
):
    from selenium.webdriver.common.by import By

    django_user_model.objects.create_user(username="ravi", password="ravi-pass")
    department = workspace_services.workspace_create(user=owner, name="History department")
    workspace_services.member_add(workspace=department, username="ravi", role="reviewer")
    essays = services.collection_create(owner=owner, name="Essay 3", workspace=department)
    processed(essays, "water.txt", WATER.encode())
    copier = processed(essays, "copier.txt", WATER_COPIED.encode())

    def no_write_controls() -> None:
        for selector in WRITE_CONTROLS:
            assert driver.find_elements(By.CSS_SELECTOR, selector) == [], selector

    log_in(driver, live_server, "ravi", "ravi-pass")
    assert "Essay 3" in driver.find_element(By.CSS_SELECTOR, "table.list").text
    submit(driver, driver.find_element(By.LINK_TEXT, "Essay 3"))
    no_write_controls()
    submit(driver, driver.find_element(By.LINK_TEXT, "copier.txt"))
    no_write_controls()
    submit(driver, driver.find_element(By.ID, "report-link"))
    no_write_controls()
    # The report opens on the match overview; the source's name opens the pair side by side.
    submit(driver, driver.find_element(By.PARTIAL_LINK_TEXT, "water.txt"))
    no_write_controls()
    assert "No verdict yet." in driver.find_element(By.ID, "pair-verdict").text

    driver.find_element(By.CSS_SELECTOR, "#verdict-form textarea[name=note]").send_keys(
        "Same sentences, same order."
    )
    submit(driver, driver.find_element(By.ID, "verdict-confirmed"))
    verdict = driver.find_element(By.ID, "pair-verdict").text
    assert "Copying confirmed" in verdict and "by ravi" in verdict
    assert "Same sentences, same order." in verdict
    assert "Copying confirmed" in driver.find_element(By.ID, "sources").text
    assert copier.verdicts.get().author.username == "ravi"
    no_write_controls()
