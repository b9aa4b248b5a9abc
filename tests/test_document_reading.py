"""Documents that perfectplay reads (strategy files, shards) which are not what they
should be: nested too deep, numbers that are not finite or too long, fields of the wrong
kind, files that are not files or too large for the memory. ``verify`` and ``show``
refuse each in one line with exit code 2."""

import json
import os
import socket

import pytest

from perfectplay import load_game, solve
from perfectplay.solution import MAX_NESTING, nesting

from .cli_runner import assert_one_line_error, in_process_of_its_own, perfectplay


@pytest.fixture(scope="module")
def tree():
    return solve(load_game("permutation(n=3)")).export()


@pytest.fixture(scope="module")
def policy():
    return solve(load_game("dice-cards(n=3)")).export()


def _both(path, needle):
    for command in ("verify", "show"):
        assert_one_line_error(perfectplay(command, str(path)), needle)


def test_a_deep_array_is_refused_before_it_is_parsed(tmp_path):
    path = tmp_path / "deep.json"
    path.write_text("[" * 200_000 + "]" * 200_000)  # a RecursionError in the JSON reader
    _both(path, "nested 200,000 levels deep")


def test_a_tree_deeper_than_a_document_can_be_is_refused(tree, tmp_path):
    """3,000 guesses deep: RecursionError in the JSON reader before; a permutation of 3
    has 6 secrets, and no game's tree nears the limit."""
    node = {"guess": "132"}
    text = json.dumps(node)
    for _ in range(3000):
        text = '{"guess": "132", "next": {"0": ' + text + "}}"
    doc = json.dumps({**tree, "strategy": {**tree["strategy"], "root": "ROOT"}})
    path = tmp_path / "deep-tree.json"
    path.write_text(doc.replace('"ROOT"', text))
    _both(path, f"levels deep, more than a perfectplay document can be ({MAX_NESTING})")


def test_a_tree_as_deep_as_a_document_may_be_is_refused_by_its_game(tree, tmp_path):
    """Within the nesting a document may have, a tree deeper than its game allows (6
    secrets: 7 guesses at most) is refused by the replay: guessing 123 again and again
    after it answered 0 never tells 231 from 312."""
    root = tree["strategy"]["root"]
    assert root["guess"] == "123" and set(root["next"]) == {"0", "1"}
    chain = {"guess": "123"}
    for _ in range(MAX_NESTING // 2 - 4):
        chain = {"guess": "123", "next": {"0": chain}}
    deep = {"guess": "123", "next": {"1": root["next"]["1"], "0": chain}}
    path = tmp_path / "chain.json"
    path.write_text(json.dumps({**tree, "strategy": {**tree["strategy"], "root": deep}}))
    _both(path, "is never solved (the tree loops)")


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_numbers_that_are_not_finite_are_refused_wherever_they_are(tree, tmp_path, constant):
    """Python's JSON reader takes NaN and Infinity; JSON has neither. Here in a field no
    check reads (the solve's seconds): accepted before."""
    path = tmp_path / "nan.json"
    path.write_text(json.dumps(tree).replace('"seconds": ', f'"seconds": {constant}, "x": ', 1))
    _both(path, f"{constant} is not a number perfectplay reads")


def test_an_integer_longer_than_python_reads_is_one_line(tree, tmp_path):
    path = tmp_path / "long.json"
    path.write_text(json.dumps({**tree, "total": "TOTAL"}).replace('"TOTAL"', "7" * 5000))
    _both(path, "an integer of 5,000 digits (at most 4,300)")


def _edited(doc, where, **fields):
    doc = json.loads(json.dumps(doc))
    (doc["strategy"] if where == "strategy" else doc).update(fields)
    return doc


@pytest.mark.parametrize(
    "document,where,fields,needle",
    [
        # each raised an exception other than a one-line error before, or was believed
        ("tree", "top", {"value_float": 10**400}, "value_float 1000"),
        (
            "tree",
            "strategy",
            {"kind": ["deduction-tree"]},
            "strategy kind ['deduction-tree'] is not",
        ),
        ("tree", "top", {"max_guesses": "4"}, "max_guesses '4' is not a whole number"),
        ("tree", "strategy", {"horizon": True}, "strategy horizon True is not a whole number"),
        ("tree", "strategy", {"horizon": 2.5}, "strategy horizon 2.5 is not a whole number"),
        ("tree", "strategy", {"horizon": 2**64}, "horizon 18446744073709551616 is not a whole"),
        ("tree", "strategy", {"determine": "no"}, "determine 'no' is not true or false"),
        ("tree", "top", {"histogram": [1, 2]}, "histogram [1, 2] is not a mapping"),
        ("tree", "top", {"game": ["permutation"]}, "game ['permutation'] is not text"),
        ("tree", "top", {"game": "p" * 10_000}, "is not a game's name"),
        ("policy", "top", {"horizon": "5"}, "horizon '5' is not a whole number"),
        ("policy", "strategy", {"by_budget": True}, "by budget left has no horizon"),
        ("policy", "top", {"value_float": 10**400}, "value_float 1000"),
        ("policy", "top", {"value": "1" + "0" * 500}, "the file says value '1000"),
    ],
)
def test_fields_of_the_wrong_kind_are_one_line(
    tree, policy, tmp_path, document, where, fields, needle
):
    path = tmp_path / "edited.json"
    path.write_text(
        json.dumps(_edited({"tree": tree, "policy": policy}[document], where, **fields))
    )
    _both(path, needle)


def test_a_fifo_a_device_or_a_socket_is_refused_at_once(tmp_path):
    """A FIFO blocked ``verify``, ``show`` and ``openings combine`` forever (waiting for a
    writer), and ``/dev/zero`` was read until the memory ran out: each is refused before
    anything waits or reads (run apart, with the runner's timeout, so that a hang
    fails)."""
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    for command in (["verify"], ["show"], ["openings", "combine"]):
        res = in_process_of_its_own(*command, str(fifo))
        assert_one_line_error(res, f"the document {fifo} is a FIFO (a named pipe), not a file")
    assert_one_line_error(
        in_process_of_its_own("verify", "/dev/zero"), "the document /dev/zero is a device"
    )
    assert_one_line_error(
        in_process_of_its_own("solve", "wordle", "answers=/dev/zero"),
        "wordle: the answers file /dev/zero is a device, not a file",
    )
    place = tmp_path / "s.json"
    if len(str(place)) < 100:  # the longest path a Unix socket may have
        with socket.socket(socket.AF_UNIX) as listening:
            listening.bind(str(place))
            _both(place, f"the document {place} is a socket, not a file")


def test_a_document_larger_than_the_memory_is_refused_before_it_is_read(tmp_path):
    """A file of 200 MB (sparse: no disk taken) may take 1,000 MB to read as a document
    (5 bytes a byte: the text and the strings parsed from it): under an address space of
    0.75 GiB it is refused, naming its size, without a try."""
    big = tmp_path / "big.json"
    with open(big, "wb") as handle:
        handle.truncate(200 << 20)
    res = in_process_of_its_own("verify", str(big), address_space=3 << 28)
    assert_one_line_error(res, f"reading the document {big} (200 MiB) would take about 1,000 MiB")


def test_a_document_is_held_to_what_its_own_text_may_take(tmp_path):
    """The estimate counts the file's structural characters: empty objects every three
    bytes (the most wasteful JSON, 28 bytes a byte measured) at 37 bytes a byte, one long
    string (a target's rows in base64) at 5, where both were held to 32."""
    from perfectplay.reading import json_memory

    for text, per_byte in [
        ("[" + "{}," * 3_000_000 + "{}]", 37),
        ('"' + "QUJD" * 3_000_000 + '"', 5),
    ]:
        path = tmp_path / "d.json"
        path.write_text(text)
        with open(path, "rb") as handle:
            need = json_memory(handle.fileno(), len(text))
        assert per_byte - 0.01 < need / len(text) < per_byte + 0.01


def test_a_string_left_open_is_read_once():
    """A string that never closes, full of escaped quotes, was sought again from each of
    them (quadratic: 40,000 took a minute, ``benchmarks/documents.py`` times it); it
    runs to the end of the text, brackets in it not counted, ten times that size."""
    opened = '"' + '\\"' * 400_000 + "[[["
    assert nesting(opened) == 0
    assert nesting("[" + opened) == 1
    assert nesting('[{"a\\"[": ["\\\\", "]]"]}, "\\\\"]') == 3
    assert nesting('["\\') == 1  # a lone backslash at the very end
