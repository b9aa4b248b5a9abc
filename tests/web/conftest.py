"""`perfectplay serve` on a free loopback port, and a headless Chromium driving it
(Debian's chromium and chromium-driver; nothing is downloaded). Tests that need the
browser are skipped, saying why, only where no browser can be had; a failing test leaves
a screenshot in tests/web/failures/."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from .served import serve_process

pytest.importorskip("starlette", reason="the web extra is not installed (pip install '.[test]')")
pytest.importorskip("uvicorn", reason="the web extra is not installed (pip install '.[test]')")

CHROMIUM = os.environ.get("PERFECTPLAY_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("PERFECTPLAY_CHROMEDRIVER", "/usr/bin/chromedriver")
FAILURES = Path(__file__).parent / "failures"
#: The two screens: (width, height, a phone's).
SCREENS = {"desktop": (1280, 900, False), "phone": (390, 844, True)}


@pytest.fixture(scope="module")
def client():
    """The web app in process (Starlette's test client) with jobs of its own, one for a
    test module (``test_http`` has its own, warmed up as ``perfectplay serve`` is)."""
    from starlette.testclient import TestClient

    from perfectplay.web.app import create_app
    from perfectplay.web.jobs import Jobs

    jobs = Jobs()
    with TestClient(create_app(jobs), raise_server_exceptions=False) as c:
        yield c
    jobs.close()


@pytest.fixture(scope="session")
def server():
    """The base address of a `perfectplay serve` process shared by the browser tests."""
    for _, base in serve_process():
        yield base


@pytest.fixture(scope="session")
def browser():
    """A headless Chromium (Selenium with Debian's chromedriver)."""
    webdriver = pytest.importorskip(
        "selenium.webdriver", reason="selenium is not installed (pip install '.[test]')"
    )
    if not (shutil.which(CHROMIUM) and shutil.which(CHROMEDRIVER)):
        pytest.skip(
            f"no browser: {CHROMIUM} or {CHROMEDRIVER} is missing "
            "(apt-get install chromium chromium-driver; .ci/run does)"
        )
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--disable-dev-shm-usage",
        "--window-size=1100,900",
    ):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.implicitly_wait(0)
    yield driver
    driver.quit()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Save a screenshot of the browser when a test using it fails."""
    outcome = yield
    report = outcome.get_result()
    if report.when == "call" and report.failed and "browser" in item.fixturenames:
        driver = item.funcargs.get("browser")
        if driver is not None:
            FAILURES.mkdir(exist_ok=True)
            driver.save_screenshot(str(FAILURES / f"{item.name}.png"))


@pytest.fixture(params=list(SCREENS))
def screen(request, browser):
    """The browser with the viewport of a desktop or a phone."""
    width, height, mobile = SCREENS[request.param]
    browser.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile},
    )
    yield request.param
    browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
