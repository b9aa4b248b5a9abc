"""The web application served on a free loopback port, and a headless Chromium driving it
(Debian's chromium and chromium-driver; nothing is downloaded). Tests that need the
browser are skipped, saying why, only where no browser can be had; a failing test leaves
a screenshot in tests/web/failures/."""

from __future__ import annotations

import os
import shutil
import socket
import threading
import time
from pathlib import Path

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed (pip install '.[test]')")
pytest.importorskip("uvicorn", reason="the web extra is not installed (pip install '.[test]')")

CHROMIUM = os.environ.get("PERFECTPLAY_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("PERFECTPLAY_CHROMEDRIVER", "/usr/bin/chromedriver")
FAILURES = Path(__file__).parent / "failures"


@pytest.fixture(scope="session")
def server():
    """The base address of the application, served by uvicorn in a thread."""
    import uvicorn

    from perfectplay.web.app import create_app
    from perfectplay.web.jobs import Jobs

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    jobs = Jobs()
    jobs.warm_up()  # as ``perfectplay serve`` does before it serves
    srv = uvicorn.Server(uvicorn.Config(create_app(jobs), host="127.0.0.1", port=port,
                                        log_level="warning"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    for _ in range(200):
        if srv.started:
            break
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    srv.should_exit = True
    thread.join(timeout=10)


@pytest.fixture(scope="session")
def browser():
    """A headless Chromium (Selenium with Debian's chromedriver)."""
    webdriver = pytest.importorskip("selenium.webdriver",
                                    reason="selenium is not installed (pip install '.[test]')")
    if not (shutil.which(CHROMIUM) and shutil.which(CHROMEDRIVER)):
        pytest.skip(f"no browser: {CHROMIUM} or {CHROMEDRIVER} is missing "
                    "(apt-get install chromium chromium-driver; .ci/run does)")
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--no-first-run",
                "--disable-dev-shm-usage", "--window-size=1100,900"):
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
