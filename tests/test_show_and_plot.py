"""`perfectplay show` prints exported strategies as trees; `--plot` draws a PNG."""

import re

from .cli_runner import assert_one_line_error
from .cli_runner import perfectplay as cli


def test_show_a_deduction_tree_to_a_depth(tmp_path):
    path = tmp_path / "mm.json"
    assert (
        cli("solve", "mastermind", "pegs=3", "colors=3", "--out", str(path), "--quiet").returncode
        == 0
    )
    shallow, deep = (
        cli("show", str(path), "--depth", "0").stdout,
        cli("show", str(path), "--depth", "3").stdout,
    )
    assert "guess 112" in shallow and "feedbacks" in shallow and "1B0W" not in shallow
    assert "1B0W" in deep and len(deep.splitlines()) > len(shallow.splitlines())


def test_show_a_markov_policy(tmp_path):
    path = tmp_path / "dice.json"
    assert cli("solve", "dice-cards", "n=2", "--out", str(path), "--quiet").returncode == 0
    out = cli("show", str(path), "--depth", "1").stdout
    assert "face down: none" in out and "rolled 1 and 2" in out and "turn card" in out


def test_show_writes_an_exact_value_as_its_fraction_and_a_float_as_a_rounded_decimal(tmp_path):
    """A float's digits (a staged solve's value) are not an exact fraction: show said
    ``7.122428516...`` as ``1424485703283869/200000000000000``."""
    exact, rounded = tmp_path / "trios.json", tmp_path / "yahtzee.json"
    assert cli("solve", "tricky-trios", "n=2", "--out", str(exact), "--quiet").returncode == 0
    solved = cli("solve", "yahtzee", "card=3", "--float", "--out", str(rounded), "--quiet")
    assert solved.returncode == 0
    assert "expected rounds = 17/5 " in cli("show", str(exact), "--depth", "0").stdout
    title = " ".join(cli("show", str(rounded), "--depth", "0").stdout.split())
    assert "= 7.122428516 (rounded)" in title and "/" not in title.partition("(rounded)")[0]
    # the same card proven by its stages (``stage_proof``): its fraction, in full
    assert cli("solve", "yahtzee", "card=3", "--out", str(rounded), "--quiet").returncode == 0
    title = " ".join(cli("show", str(rounded), "--depth", "0").stdout.split())
    assert "(rounded)" not in title
    assert re.search(r"= \d+/\d+ \(claimed proven optimal", title), title


def test_show_refuses_a_file_that_is_not_a_strategy(tmp_path):
    path = tmp_path / "x.json"
    path.write_text('{"hello": 1}')
    res = cli("show", str(path))
    assert res.returncode == 2 and "not a perfectplay solution" in res.stderr


def test_plot_writes_png_for_both_kinds(tmp_path):
    for args in (["dice-cards", "n=3"], ["permutation", "n=4"]):
        png = tmp_path / f"{args[0]}.png"
        res = cli("solve", *args, "--plot", str(png), "--quiet")
        assert res.returncode == 0, res.stderr
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_show_a_horizon_policy_uses_the_budget_left(tmp_path):
    path = tmp_path / "h.json"
    assert (
        cli(
            "solve",
            "dice-cards",
            "n=2",
            "--objective",
            "probability",
            "--horizon",
            "3",
            "--out",
            str(path),
            "--quiet",
        ).returncode
        == 0
    )
    out = cli("show", str(path), "--depth", "3").stdout
    assert "face down: none" in out and "turn card" in out


def test_show_refuses_malformed_policies_in_one_line(tmp_path):
    import json

    path = tmp_path / "dice.json"
    assert cli("solve", "dice-cards", "n=2", "--out", str(path), "--quiet").returncode == 0
    doc = json.loads(path.read_text())
    from perfectplay.markov.policy_file import decode_policy, encode_policy

    cols = decode_policy(doc["strategy"])
    cols.choose[0, :3] = 9
    doc["strategy"] = encode_policy(cols)
    path.write_text(json.dumps(doc))
    res = cli("show", str(path))
    assert_one_line_error(res, "not legal")


def test_unwritable_output_is_one_line(tmp_path):
    res = cli("solve", "dice-cards", "n=2", "--out", str(tmp_path / "no" / "x.json"))
    assert_one_line_error(res, "there is no directory")


def test_output_paths_are_checked_before_the_work(tmp_path):
    # dice-cards n=16 is refused by the solve (too large); a bad output path must be
    # refused first, naming the path the user gave
    res = cli("solve", "dice-cards", "n=16", "--out", str(tmp_path / "no" / "x.json"))
    assert_one_line_error(res, f"--out {tmp_path / 'no' / 'x.json'}: there is no directory")
    res = cli("solve", "dice-cards", "n=16", "--out", "/proc/perfectplay.json")
    assert_one_line_error(res, "--out /proc/perfectplay.json:")
    res = cli("solve", "dice-cards", "n=16", "--plot", str(tmp_path / "v.jpg"))
    assert_one_line_error(res, "must end in .png, .svg, .pdf")
    res = cli("solve", "dice-cards", "n=16", "--plot", "/proc/v.png")
    assert_one_line_error(res, "--plot /proc/v.png:")
    assert not list(tmp_path.iterdir())


def test_plot_honours_svg_and_pdf_and_says_where_it_wrote(tmp_path):
    for suffix, magic in ((".svg", b"<?xml"), (".pdf", b"%PDF")):
        res = cli(
            "solve",
            "item-matching",
            "slots=2",
            "items=3",
            "turns=2",
            "--plot",
            f"p{suffix}",
            "--quiet",
            cwd=tmp_path,
        )
        assert res.returncode == 0, res.stderr
        assert (tmp_path / f"p{suffix}").read_bytes().startswith(magic)
        assert f"written to p{suffix}" in res.stdout
