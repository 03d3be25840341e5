"""The explore page in a real browser (Chromium driven by Selenium), as a person uses it.

Open a scenario, go back to its start, click through its actions, ask for the illegal ones and
try the refused cast (its CR number shown), save the trace, and run ``mtgcheck scenario`` on
the saved file.  Skipped when Chromium, its driver or selenium is missing
(``apt-get install -y chromium chromium-driver``; ``pip install -e '.[explore]'``).
Set ``MTGCHECK_EXPLORE_SHOTS=DIR`` to keep screenshots of the page (the README's).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, Iterator

import pytest

from mtgcheck.explore.server import ExploreServer
from mtgcheck.explore.session import Explorer, open_source

from .conftest import ROOT

pytestmark = pytest.mark.browser

webdriver = pytest.importorskip("selenium.webdriver", reason="selenium missing: pip install -e '.[explore]'")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
if not (CHROMIUM and DRIVER):
    pytest.skip("Chromium or chromedriver missing: apt-get install -y chromium chromium-driver", allow_module_level=True)

from selenium.common.exceptions import StaleElementReferenceException  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support import expected_conditions as ec  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

SCENARIO = ROOT / "tests" / "scenarios" / "plot-waits-a-turn.json"
SHOTS = os.environ.get("MTGCHECK_EXPLORE_SHOTS")


@pytest.fixture
def browser() -> Iterator[Any]:
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=1200,640"):
        opts.add_argument(arg)
    driver = webdriver.Chrome(options=opts, service=webdriver.ChromeService(executable_path=DRIVER))
    try:
        yield driver
    finally:
        driver.quit()


def serving(source: str, engine: str | None = None) -> Any:
    return ExploreServer(Explorer(open_source(source), engine)).running()


@pytest.fixture
def server() -> Iterator[ExploreServer]:
    with serving(str(SCENARIO)) as srv:
        yield srv


def _shot(driver: Any, name: str) -> None:
    if SHOTS:
        driver.execute_script("window.scrollTo(0, 0)")
        driver.save_screenshot(str(Path(SHOTS) / f"explore-{name}.png"))


def _trace(driver: Any) -> list[str]:
    return [li.text for li in driver.find_elements(By.CSS_SELECTOR, "#trace li")]


def _waiter(driver: Any) -> Any:
    """Wait for a condition once the page has no request in flight (it redraws after each)."""
    plain = WebDriverWait(driver, 20, ignored_exceptions=(StaleElementReferenceException,))

    class Settled:
        def until(self, cond: Any) -> Any:
            return plain.until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-busy") == "0"
                               and cond(d))

    return Settled()


def test_click_through_refuse_save_and_replay(browser: Any, server: ExploreServer, tmp_path: Path) -> None:
    wait = _waiter(browser)
    browser.get(server.url)
    # The scenario opens with its trace: the second action refused by CR 702.170d.
    wait.until(lambda d: len(_trace(d)) == 3)
    assert "refused: CR 702.170d" in _trace(browser)[2]
    # Back to the start (branching from step 0), then click the plot like a person would.
    browser.find_element(By.CSS_SELECTOR, "#trace li").click()
    plot = wait.until(ec.element_to_be_clickable((By.CSS_SELECTOR, 'button.action[data-text="player 0 plot show"]')))
    plot.click()
    wait.until(lambda d: len(_trace(d)) == 2 and "current" in d.find_elements(By.CSS_SELECTOR, "#trace li")[1]
               .get_attribute("class"))
    status = browser.find_element(By.ID, "status").text
    assert "turn 1" in status and "step: main1" in status and "null" not in status
    exile = browser.find_element(By.CSS_SELECTOR, '.card[data-id="show"]')
    assert "plotted T1" in exile.text
    # Ask for the illegal actions: the cast of the plotted card is refused with its rule.
    browser.find_element(By.ID, "show-illegal").click()
    cast = wait.until(ec.visibility_of_element_located(
        (By.CSS_SELECTOR, '#illegal li[data-text="player 0 cast show (plotted)"]')))
    assert "CR 702.170d" in cast.text and "turn it became plotted" in cast.text
    _shot(browser, "refusal")
    cast.find_element(By.TAG_NAME, "button").click()
    wait.until(lambda d: len(_trace(d)) == 3)
    assert "refused: CR 702.170d" in _trace(browser)[2]
    # Pass priority once more (a legal step), then save.
    browser.find_element(By.CSS_SELECTOR, 'button.action[data-text="player 0 pass"]').click()
    wait.until(lambda d: len(_trace(d)) == 4)
    props = browser.find_elements(By.CSS_SELECTOR, "#props tr.violated")
    assert props == []  # the reference rules break nothing
    out = tmp_path / "explored.json"
    browser.find_element(By.ID, "save-path").send_keys(str(out))
    browser.find_element(By.ID, "save-btn").click()
    wait.until(lambda d: d.find_element(By.ID, "save-msg").text.startswith(("saved", "not saved")))
    assert browser.find_element(By.ID, "save-msg").text == f"saved {out}"
    _shot(browser, "page")
    # Saving again asks before overwriting; declining leaves the file as it was.
    before = out.read_text()
    browser.find_element(By.ID, "save-btn").click()
    alert = WebDriverWait(browser, 20).until(ec.alert_is_present())
    assert "exists" in alert.text
    alert.dismiss()
    wait.until(lambda d: d.find_element(By.ID, "save-msg").text == "not saved: the file exists")
    assert out.read_text() == before
    # The saved file passes `mtgcheck scenario` as saved.
    r = subprocess.run([sys.executable, "-m", "mtgcheck.cli", "scenario", str(out)], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "illegal (CR 702.170d" in r.stdout
    # The page's URL reopens the same trace (a fresh tab, the same session).
    url = browser.current_url
    browser.get("about:blank")
    browser.get(url)
    wait.until(lambda d: len(_trace(d)) == 4)
    assert "refused: CR 702.170d" in _trace(browser)[2]


def test_without_the_token_the_page_shows_nothing(browser: Any, server: ExploreServer) -> None:
    browser.get(server.url.split("?")[0])
    err = WebDriverWait(browser, 20, ignored_exceptions=(StaleElementReferenceException,)).until(lambda d: d.find_element(By.ID, "error").text)
    assert "session token" in err
    assert browser.find_elements(By.CSS_SELECTOR, "button.action") == []


def test_a_counterexample_opens_at_its_violation_highlighted(browser: Any) -> None:
    cx = ROOT / "counterexamples" / "variant-116.2k" / "plot-only-main-phase-empty-stack-068555f9.json"
    with serving(str(cx)) as srv:
        browser.get(srv.url)
        row = _waiter(browser).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#props tr.broken"))[0]
        assert row.get_attribute("data-id") == "plot-only-main-phase-empty-stack"
        assert "violated" in row.get_attribute("class").split()
        assert "variant-116.2k" in browser.find_element(By.ID, "source").text
        _shot(browser, "counterexample")


def test_an_engine_beside_the_model_shows_its_first_divergence(browser: Any) -> None:
    broken = f"cmd:{sys.executable} {ROOT / 'tests' / 'engines' / 'example_engine.py'} --broken"
    with serving(str(SCENARIO), broken) as srv:
        browser.get(srv.url)
        note = _waiter(browser).until(lambda d: d.find_element(By.ID, "engine").text)
        assert "example-broken" in note and "first divergence after step 1" in note and "CR 702.170d" in note
        marked = browser.find_elements(By.CSS_SELECTOR, "#trace li.diverged")
        assert [li.text.splitlines()[0] for li in marked] == ["player 0 plot show"]
