"""In headless Chromium: the match overview (every source's passages in its own colour at
once, next/previous match from the keyboard, a click through to the side-by-side view) and
the collusion graph of an assignment (its edges, the threshold slider, a click on an edge).

`OVERVIEW_SCREENSHOTS=<folder>` saves what the pages look like (docs/images/)."""

from __future__ import annotations

import os
import re

import pytest

from tests.documents.classroom import LAKE, classroom, larger_class
from tests.documents.test_browser import driver, log_in, submit  # noqa: F401 - headless Chromium


def screenshot(driver, name):  # noqa: F811
    folder = os.environ.get("OVERVIEW_SCREENSHOTS")
    if folder:
        driver.save_screenshot(os.path.join(folder, name))


@pytest.fixture
def students(assignment):
    return classroom(assignment)


@pytest.fixture
def larger(assignment, archive):
    """The class with gina and hana: hana copied gina's river paragraph and a lake paragraph
    that an article and a blog reprinting it in `archive` both hold."""
    return larger_class(assignment, archive)


def current_match(driver):  # noqa: F811
    from selenium.webdriver.common.by import By

    return driver.find_element(By.ID, "match-status").get_attribute("data-match")


def test_the_overview_shows_every_source_in_its_colour_and_steps_through_them(
    live_server,
    driver,  # noqa: F811
    owner,
    larger,
):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait

    log_in(driver, live_server, "owner", "owner-pass")
    hana = larger["hana"]
    driver.get(f"{live_server.url}/documents/{hana.id}/report/")
    sources = driver.find_elements(By.CSS_SELECTOR, "#overview-sources li")
    assert len(sources) == 3
    swatch = {
        li.get_attribute("data-source"): li.find_element(By.CSS_SELECTOR, ".swatch")
        for li in sources
    }
    colour = "return getComputedStyle(arguments[0]).backgroundColor"
    colours = {source: driver.execute_script(colour, box) for source, box in swatch.items()}
    assert len(set(colours.values())) == 3
    # Every source's passages at once, each in its source's colour: the river in gina's, the
    # lake (in the article and in the blog) striped in both of theirs.
    pane = driver.find_element(By.ID, "overview-text")
    river = pane.find_element(By.CSS_SELECTOR, "mark.c2")
    assert river.text.startswith("The river was straightened")
    assert driver.execute_script(colour, river) == colours[str(larger["gina"].id)]
    lake = pane.find_element(By.CSS_SELECTOR, "mark.multi")
    assert lake.text.startswith("The lake froze")
    stripes = driver.execute_script("return getComputedStyle(arguments[0]).backgroundImage", lake)
    others = [c for source, c in colours.items() if source != str(larger["gina"].id)]
    assert stripes.startswith("repeating-linear-gradient") and all(c in stripes for c in others)
    assert all(li.find_element(By.CSS_SELECTOR, ".share").text.endswith("%") for li in sources)
    assert "next match" in driver.find_element(By.ID, "keys-hint").text

    body = driver.find_element(By.TAG_NAME, "body")
    body.send_keys("j")
    WebDriverWait(driver, 10).until(lambda _: current_match(driver) is not None)
    one = current_match(driver)
    outlined = pane.find_elements(By.CSS_SELECTOR, "mark.current")
    assert outlined and all(m.get_attribute("data-pairs").split().count(one) for m in outlined)
    status = driver.find_element(By.ID, "match-status").text
    assert status.startswith("Match 1 of 3 · gina.txt")
    # The match's kind and score in words, as on its mark's tooltip.
    assert re.search(r"· (Verbatim copy|Edited copy|Summary), \d+% alike$", status)
    assert re.search(
        r"^gina\.txt: (Verbatim copy|Edited copy|Summary), \d+% alike", river.get_attribute("title")
    )
    body.send_keys("j")
    WebDriverWait(driver, 10).until(lambda _: current_match(driver) != one)
    two = current_match(driver)
    assert driver.find_element(By.ID, "match-status").text.startswith("Match 2 of ")
    for mark in pane.find_elements(By.CSS_SELECTOR, "mark"):  # only the second is outlined
        current = "current" in mark.get_attribute("class").split()
        assert current == (two in mark.get_attribute("data-pairs").split())
    body.send_keys(Keys.ARROW_LEFT)
    WebDriverWait(driver, 10).until(lambda _: current_match(driver) == one)
    body.send_keys("n")
    WebDriverWait(driver, 10).until(lambda _: current_match(driver) == two)

    def in_view(element):
        return driver.execute_script(
            "var r = arguments[0].getBoundingClientRect();"
            "var p = arguments[1].getBoundingClientRect();"
            "return r.top >= p.top && r.bottom <= p.bottom;",
            element,
            pane,
        )

    WebDriverWait(driver, 10).until(
        lambda _: in_view(pane.find_element(By.CSS_SELECTOR, "mark.current"))
    )

    # Enter opens the current match side by side with its source.
    body.send_keys(Keys.ENTER)
    WebDriverWait(driver, 10).until(lambda b: "?source=" in b.current_url)
    assert driver.find_elements(By.CSS_SELECTOR, "#source-text mark")
    assert driver.find_element(By.ID, "tab-side-by-side").tag_name == "b"


def test_a_click_on_a_source_or_a_passage_opens_the_side_by_side_view(
    live_server,
    driver,  # noqa: F811
    owner,
    larger,
):
    from selenium.webdriver.common.by import By

    log_in(driver, live_server, "owner", "owner-pass")
    hana, gina = larger["hana"], larger["gina"]
    driver.get(f"{live_server.url}/documents/{hana.id}/report/")
    submit(driver, driver.find_element(By.CSS_SELECTOR, f'li[data-source="{gina.id}"] a'))
    assert driver.current_url.endswith(f"/documents/{hana.id}/report/?source={gina.id}")
    assert "gina.txt" in driver.find_element(By.CSS_SELECTOR, "tr.chosen").text

    submit(driver, driver.find_element(By.ID, "tab-overview"))
    submit(driver, driver.find_element(By.CSS_SELECTOR, "#overview-text mark.c2"))
    assert driver.current_url.endswith(f"?source={gina.id}#q-0")
    assert "The river" in driver.find_element(By.CSS_SELECTOR, "#source-text mark").text
    # The two panes scroll together unless the reader says otherwise.
    assert driver.find_element(By.ID, "scroll-together").is_selected()


def test_the_next_passage_key_brings_the_side_by_side_panes_into_view(
    live_server,
    driver,  # noqa: F811
    owner,
    larger,
):
    """On a short screen the panes start below the verdict form and the passage list; j
    shows the next passage in them, so they must come into view."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    log_in(driver, live_server, "owner", "owner-pass")
    driver.set_window_size(1366, 600)
    hana, gina = larger["hana"], larger["gina"]
    driver.get(f"{live_server.url}/documents/{hana.id}/report/?source={gina.id}")
    panes = driver.find_element(By.CSS_SELECTOR, ".side-by-side")
    top = "return arguments[0].getBoundingClientRect().top"
    assert driver.execute_script(top, panes) > driver.execute_script("return innerHeight")
    driver.find_element(By.TAG_NAME, "body").send_keys("j")
    WebDriverWait(driver, 10).until(  # at the top of the window, give or take a subpixel
        lambda _: (
            -1 <= driver.execute_script(top, panes) < driver.execute_script("return innerHeight")
        )
    )


def test_the_side_by_side_panes_scroll_together(live_server, driver, owner, assignment):  # noqa: F811
    """Two long texts with two passages at different heights: wheeling the left pane to the
    second passage brings the right pane's to the same height."""
    from selenium.webdriver.common.action_chains import ActionChains, ScrollOrigin
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    from tests.documents.classroom import FOREST, MARKET, OWN, SCHOOL
    from tests.documents.factories import processed

    filler = "\n\n".join(OWN.values())
    original = processed(
        assignment,
        "original.txt",
        "\n\n".join([SCHOOL, FOREST, SCHOOL, SCHOOL, MARKET, SCHOOL, SCHOOL]).encode(),
    )
    copier = processed(
        assignment,
        "copier.txt",
        ("\n\n".join([filler, FOREST, filler, filler, MARKET, filler])).encode(),
    )
    log_in(driver, live_server, "owner", "owner-pass")
    driver.set_window_size(1400, 700)
    driver.get(f"{live_server.url}/documents/{copier.id}/report/?source={original.id}")
    left = driver.find_element(By.ID, "query-text")
    right = driver.find_element(By.ID, "source-text")
    last = len(left.find_elements(By.CSS_SELECTOR, '[id^="q-"]')) - 1
    assert last >= 1

    def top_in(pane, anchor_id):
        return driver.execute_script(
            "return document.getElementById(arguments[0]).getBoundingClientRect().top"
            " - arguments[1].getBoundingClientRect().top;",
            anchor_id,
            pane,
        )

    # Wheel the left pane down until its last passage is at the reading line.
    for _ in range(40):
        if top_in(left, f"q-{last}") <= left.size["height"] / 3:
            break
        ActionChains(driver).scroll_from_origin(ScrollOrigin.from_element(left), 0, 80).perform()
    WebDriverWait(driver, 10).until(
        lambda _: abs(top_in(left, f"q-{last}") - top_in(right, f"s-{last}")) < 40
    )

    # Turned off, the right pane stays where it is.
    driver.find_element(By.ID, "scroll-together").click()
    before = driver.execute_script("return arguments[0].scrollTop", right)
    ActionChains(driver).scroll_from_origin(ScrollOrigin.from_element(left), 0, -300).perform()
    WebDriverWait(driver, 10).until(
        lambda _: top_in(left, f"q-{last}") > left.size["height"] / 3 + 100
    )
    assert driver.execute_script("return arguments[0].scrollTop", right) == before


def click_at(driver, graph, point_script):  # noqa: F811
    """Click the graph where `point_script` (a cytoscape rendered position) says."""
    from selenium.webdriver.common.action_chains import ActionChains

    point = driver.execute_script(f"return {point_script};")
    width, height = graph.size["width"], graph.size["height"]
    ActionChains(driver).move_to_element_with_offset(
        graph, int(point["x"] - width / 2), int(point["y"] - height / 2)
    ).click().perform()


def test_the_collusion_graph_hides_weak_edges_and_leads_to_the_pair(
    live_server,
    driver,  # noqa: F811
    owner,
    assignment,
    students,
):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait

    log_in(driver, live_server, "owner", "owner-pass")
    driver.get(f"{live_server.url}/collections/{assignment.id}/")
    submit(driver, driver.find_element(By.ID, "collusion"))
    graph = driver.find_element(By.ID, "graph")
    WebDriverWait(driver, 20).until(lambda _: graph.get_attribute("data-ready") == "1")
    assert driver.execute_script("return collusion.cy.edges().length") == 3
    assert driver.execute_script("return collusion.cy.nodes().length") == 4
    assert graph.get_attribute("data-edges-shown") == "3"
    clusters = driver.find_elements(By.CSS_SELECTOR, "#clusters > li")
    assert len(clusters) == 1 and clusters[0].find_element(By.TAG_NAME, "b").text == "4 documents"
    arrows = driver.execute_script(
        "return collusion.cy.edges().map(e => e.style('target-arrow-shape'))"
    )
    assert arrows == ["triangle"] * 3

    # The slider just above the weakest edge (bob and alice: 42 % of either) hides it, and
    # splits the cluster in two.
    edges = driver.execute_script("return collusion.graph.edges")
    weakest = min(edges, key=lambda e: e["share"])
    assert {weakest["source"], weakest["target"]} == {students["bob"].id, students["alice"].id}
    slider = driver.find_element(By.ID, "threshold")
    slider.send_keys(*[Keys.ARROW_RIGHT] * (int(weakest["share"] * 100) + 1))
    WebDriverWait(driver, 10).until(lambda _: graph.get_attribute("data-edges-shown") == "2")
    hidden = driver.execute_script("return collusion.cy.edges('.hidden').map(e => e.id())")
    assert hidden == [weakest["id"]]
    clusters = driver.find_elements(By.CSS_SELECTOR, "#clusters > li")
    assert [c.find_element(By.TAG_NAME, "b").text for c in clusters] == ["2 documents"] * 2
    assert driver.find_element(By.ID, "edge-count").text == "2 of 3 links shown"

    # A click on carol's edge to alice opens that pair side by side.
    carol, alice = students["carol"], students["alice"]
    WebDriverWait(driver, 10).until(lambda _: graph.get_attribute("data-layout") == "done")
    click_at(
        driver, graph, f"collusion.cy.getElementById('{carol.id}-{alice.id}').renderedMidpoint()"
    )
    WebDriverWait(driver, 10).until(lambda b: "?source=" in b.current_url)
    assert driver.current_url.endswith(f"/documents/{carol.id}/report/?source={alice.id}")

    # A click on a document opens its report.
    driver.back()
    graph = driver.find_element(By.ID, "graph")
    WebDriverWait(driver, 20).until(lambda _: graph.get_attribute("data-layout") == "done")
    click_at(driver, graph, f"collusion.cy.getElementById('{carol.id}').renderedPosition()")
    WebDriverWait(driver, 10).until(
        lambda b: b.current_url.endswith(f"/documents/{carol.id}/report/")
    )


def test_a_larger_class_in_pictures(
    live_server,
    driver,  # noqa: F811
    owner,
    assignment,
    larger,
):
    """hana's overview: three sources, the lake paragraph (in an article and in a blog
    reprinting it) striped in two colours; the graph: the class in two clusters. With
    OVERVIEW_SCREENSHOTS, the pictures of docs/ui.md."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    log_in(driver, live_server, "owner", "owner-pass")
    driver.set_window_size(1400, 860)
    driver.get(f"{live_server.url}/documents/{larger['hana'].id}/report/")
    titles = [e.text for e in driver.find_elements(By.CSS_SELECTOR, "#overview-sources .label")]
    assert len(titles) == 3 and any("gina.txt" in t for t in titles)
    striped = driver.find_elements(By.CSS_SELECTOR, "#overview-text mark.multi")
    assert striped and striped[0].text.strip() in LAKE  # the lake paragraph, in two colours
    image = driver.execute_script(
        "return getComputedStyle(arguments[0]).backgroundImage", striped[0]
    )
    assert image.startswith("repeating-linear-gradient")
    body = driver.find_element(By.TAG_NAME, "body")
    body.send_keys("j")
    body.send_keys("j")
    WebDriverWait(driver, 10).until(
        lambda _: driver.find_element(By.ID, "match-status").text.startswith("Match 2 of")
    )
    # The lake paragraph's two sources in their rank: the article, then the blog.
    assert "regional-news.txt" in driver.find_element(By.ID, "match-status").text
    screenshot(driver, "overview.png")

    driver.set_window_size(1400, 1000)
    driver.get(f"{live_server.url}/collections/{assignment.id}/collusion/")
    graph = driver.find_element(By.ID, "graph")
    WebDriverWait(driver, 20).until(lambda _: graph.get_attribute("data-layout") == "done")
    clusters = driver.find_elements(By.CSS_SELECTOR, "#clusters > li b")
    assert [c.text for c in clusters] == ["4 documents", "2 documents"]
    screenshot(driver, "collusion.png")
