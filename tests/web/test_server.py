"""`perfectplay serve` as a process of its own: every play board answers (the heuristic
when the optimal search needs longer, a Markov board's strategy solved meanwhile), no
work outlives its answer, pages answer within 2 s while 40 oversized solves are refused,
and SIGTERM, Ctrl-C and SIGKILL leave no process behind."""

from __future__ import annotations

import http.client
import http.cookiejar
import signal
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

import pytest

from .served import HUNG, serve_process

psutil = pytest.importorskip("psutil", reason="the test extras are not installed")
pytest.importorskip("starlette", reason="the web extra is not installed")

from perfectplay.web.jobs import REVIEW_WORK  # noqa: E402

#: A solve over the web page's cap: refused by arithmetic on its parameters.
OVERSIZED = {"game": "mastermind", "pegs": "6", "colors": "9"}
#: Every game's board, at the web page's defaults (item matching's items=4).
BOARDS = [
    "/play/wordle",
    "/play/wordle?mode=hard",
    "/play/wordle?lists=nyt-2023&mode=hard",
    "/play/mastermind",
    "/play/permutation",
    "/play/bulls-and-cows",
    "/play/item-matching",
    "/play/dice-cards",
    "/play/tricky-trios",
]


@pytest.fixture(scope="module")
def served():
    """A `perfectplay serve` process shared by the tests that leave it running."""
    yield from serve_process()


@pytest.fixture
def own_server():
    """A `perfectplay serve` process of the test's own (which stops it)."""
    yield from serve_process()


def _get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=HUNG) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as err:
        return err.code, err.read().decode()


def _post(url: str, fields: dict) -> tuple[int, str | None]:
    """The status and the address redirected to (not followed), posted by the module's
    one visitor (its cookie kept: the solves it starts it may cancel)."""
    data = urllib.parse.urlencode(fields).encode()
    request = urllib.request.Request(url, data=data)
    try:
        with _VISITOR.open(request, timeout=HUNG) as response:
            return response.status, None
    except urllib.error.HTTPError as err:
        return err.code, err.headers.get("location")


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


_VISITOR = urllib.request.build_opener(
    _NoRedirect, urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar())
)


def _suggested(url: str, tries: int = 5) -> str:
    """The board's suggestion line, reloading (as the page says to) while a loaded
    machine kept the advisor from answering within its budget."""
    for _ in range(tries):
        status, page = _get(url)
        assert status == 200
        if 'id="suggestion"' in page:
            return page.split('id="advice">')[1].split("</p>")[0]
    pytest.fail(f"no suggestion at {url} in {tries} tries")


def _busy_workers(server: psutil.Process) -> list[psutil.Process]:
    """The server's descendants that do work: those below the fork server (the fork
    server and the resource tracker wait for work, using no CPU)."""
    return [
        p
        for child in server.children()
        if "forkserver" in " ".join(child.cmdline())
        for p in child.children(recursive=True)
    ]


def _settled(server: psutil.Process, seconds: float = 10) -> list[psutil.Process]:
    """The busy workers left once the answers are in (a worker ended after its answer is
    reaped within moments)."""
    deadline = time.monotonic() + seconds
    while (left := _busy_workers(server)) and time.monotonic() < deadline:
        time.sleep(0.1)
    return left


def test_port_0_serves_on_the_port_the_system_chose_and_says_it(served):
    _, base = served  # (the address the server said, as a person reads it)
    port = int(base.rsplit(":", 1)[1])
    assert port != 0
    assert _get(base + "/")[0] == 200


def _status_for_host(port: int, host: str) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=HUNG)
    try:
        conn.request("GET", "/", headers={"Host": host})
        return conn.getresponse().status
    finally:
        conn.close()


def test_the_server_answers_the_names_of_its_address_alone(served):
    _, base = served
    port = int(base.rsplit(":", 1)[1])
    for host in (f"localhost:{port}", f"127.0.0.1:{port}", f"[::1]:{port}"):
        assert _status_for_host(port, host) == 200, host
    for host in (f"rebound.example:{port}", f"localhost:{port + 1}", "localhost"):
        assert _status_for_host(port, host) == 400, host


def test_every_board_answers_and_leaves_no_work_running(served):
    proc, base = served
    for path in BOARDS:
        status, page = _get(base + path)
        assert status == 200, (path, page[-500:])
        assert 'id="advice"' in page or "optimal play needs" in page or 'id="waiting"' in page, (
            path,
            page[-500:],
        )
    # the start: the opening book's first guess, with what backs it
    assert "proven optimal over all 12,972 openings" in _suggested(base + "/play/wordle")
    assert "optimal after this first guess" in _suggested(base + "/play/wordle?mode=hard")
    for mode in ("normal", "hard"):  # the best of the openings the project valued
        suggested = _suggested(base + f"/play/wordle?lists=nyt-2023&mode={mode}")
        assert "openings valued so far, of 14,855: an upper bound" in suggested
    # an optimal guess takes longer than the budget: the best stage found, said so
    assert "not proven" in _suggested(base + "/play/wordle?secret=yours&moves=fuzzy:bbbbb")
    # the search goes on after the page answered: a reload finds it proven
    for _ in range(10):
        line = _suggested(base + "/play/mastermind?secret=yours&moves=1123:1B1W")
        if "not proven" not in line:
            break
        time.sleep(1)
    assert '(<span id="suggestion-note">proven optimal;' in line
    # (a review's values, started by the boards as their games go, end within their time)
    assert _settled(psutil.Process(proc.pid), seconds=REVIEW_WORK + 5) == []


def test_five_boards_at_once_all_answer(served):
    proc, base = served
    # Markov games of sizes whose kernels the install compiled (another size's first solve
    # compiles its own, a minute on a loaded machine, its board showing the progress)
    paths = [
        "/play/wordle?secret=yours&moves=salet:bbbyg",
        "/play/wordle?secret=yours&mode=hard&moves=crane:bbbbb",
        "/play/bulls-and-cows?secret=yours&moves=0123:0B1C",
        "/play/dice-cards?n=2",
        "/play/tricky-trios?n=2",
    ]
    answers: dict[str, int] = {}

    def fetch(path: str) -> None:
        answers[path] = _get(base + path)[0]

    threads = [threading.Thread(target=fetch, args=(p,)) for p in paths]
    for t in threads:
        t.start()
    for t in threads:
        t.join(HUNG)
    assert answers == {p: 200 for p in paths}
    assert _settled(psutil.Process(proc.pid), seconds=60) == []  # (the strategy solves end)


def test_a_solve_over_the_cap_is_refused_with_a_page(served):
    _, base = served
    status, job = _post(base + "/solve", {"game": "mastermind", "pegs": "4", "colors": "7"})
    assert status == 303
    assert _post(base + "/solve", {"game": "dice-cards"})[0] == 429
    status, page = _get(base + "/play/mastermind?secret=yours&moves=1123:0B1W")  # still answers
    assert status == 200 and "suggested guess" in page
    assert _post(base + job + "/cancel", {})[0] == 303  # (the server is shared)


def _in_flight(base: str) -> list[threading.Thread]:
    """A long solve and two boards whose suggestions are still being worked out."""
    assert _post(base + "/solve", {"game": "mastermind", "pegs": "4", "colors": "7"})[0] == 303

    def ask(url: str) -> None:  # (the server may be stopped before it answers)
        try:
            _get(url)
        except OSError:
            pass

    threads = [
        threading.Thread(target=ask, args=(base + p,), daemon=True)
        for p in ("/play/wordle?moves=raise:bbbbb", "/play/bulls-and-cows?moves=0123:1B0C")
    ]
    for t in threads:
        t.start()
    time.sleep(0.3)
    return threads


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_stop_signal_ends_the_server_and_all_its_work(own_server, sig):
    proc, base = own_server
    server = psutil.Process(proc.pid)
    _in_flight(base)
    family = server.children(recursive=True)
    assert _busy_workers(server)  # the solve's worker at least
    proc.send_signal(sig)
    proc.wait(10)  # the bound: a stop within 10 s
    gone, alive = psutil.wait_procs(family, timeout=5)
    assert alive == []


def test_sigkill_of_the_server_leaves_no_process_running(own_server):
    proc, base = own_server
    server = psutil.Process(proc.pid)
    _in_flight(base)
    family = server.children(recursive=True)
    assert _busy_workers(server)
    proc.kill()
    proc.wait(10)
    gone, alive = psutil.wait_procs(family, timeout=10)
    assert alive == []


def test_pages_answer_within_2_s_while_40_oversized_solves_are_refused(served):
    _, base = served
    pages = ["/", "/static/style.css", "/play/mastermind?pegs=3&colors=4"]
    refused: list[int] = []

    def post_twice() -> None:
        for _ in range(2):
            refused.append(_post(base + "/solve", OVERSIZED)[0])

    threads = [threading.Thread(target=post_twice) for _ in range(20)]
    for t in threads:
        t.start()
    took: dict[str, float] = {}
    while True:  # every page, again while any refusal is in flight
        for path in pages:
            start = time.monotonic()
            assert _get(base + path)[0] == 200, path
            took[path] = max(took.get(path, 0.0), time.monotonic() - start)
        if not any(t.is_alive() for t in threads):
            break
    for t in threads:
        t.join(HUNG)
    assert refused == [413] * 40
    assert max(took.values()) < 2.0, took  # the README's promise, measured
