"""Real strategy files and shards, mutated as a careless or hostile hand would (values of
other types, keys deleted, values nested deeper, NaN and Infinity, huge numbers, the
columns of a Markov policy replaced, the text cut short), given to ``verify``, ``show``
and ``openings combine``: each accepts the file or refuses it in one line with exit
code 2, never a traceback."""

import base64
import io
import json
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from perfectplay import load_game, solve
from perfectplay.deduction.openings import openings, value_openings

from .cli_runner import perfectplay

#: A JSON value of any type, numbers at the edges included.
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 30),
    st.sampled_from([-(2**63), 2**64, 10**40, 10**4000, 0.5, -1.0, 1e308]),
    st.sampled_from([math.nan, math.inf, -math.inf]),
    st.text(max_size=8),
    st.sampled_from(["5625", "3/0", "1/3", "-2", "1e999", "nan", "0B0W"]),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=6,
)

#: Keys the documents have or may have (added where a mutation inserts one).
KEYS = """horizon by_budget after determine max_guesses wins label status proven exact
objective value value_float total worst secrets histogram states guess next root kind
params game results index bound limit openings first unreduced total_cost encoding""".split()
#: The mutations, the likelier ones more often (the values and keys a check reads).
MUTATIONS = ["replace"] * 4 + ["insert"] * 2 + ["delete", "deepen", "huge", "not-finite"]


def paths(doc, here=()):
    """Every place in `doc` (a tuple of keys and indices), the root first."""
    yield here
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield from paths(v, here + (k,))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield from paths(v, here + (i,))


def _at(doc, path):
    for step in path:
        doc = doc[step]
    return doc


@st.composite
def mutated(draw, doc):
    """`doc` with one to three mutations, as the text of a file (cut short at times).
    Values nested deeper than the JSON writer goes, and integers longer than it writes,
    are put in as text (`spliced`)."""
    doc = json.loads(json.dumps(doc))
    leaves = [v for v in (_at(doc, p) for p in paths(doc)) if not isinstance(v, (dict, list))]
    spliced = []
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(list(paths(doc))[1:]))
        parent, last = _at(doc, path[:-1]), path[-1]
        how = draw(st.sampled_from(MUTATIONS))
        if how == "replace":
            parent[last] = draw(st.one_of(VALUES, st.sampled_from(leaves)))
        elif how == "insert" and isinstance(parent[last], dict):
            parent[last][draw(st.sampled_from(KEYS))] = draw(
                st.one_of(VALUES, st.sampled_from(leaves))
            )
        elif how == "delete":
            del parent[last]
        elif how == "deepen":
            levels = draw(st.sampled_from([1, 3, 50, 190, 300, 600, 3000, 200_000]))
            opening, closing = draw(st.sampled_from([("[", "]"), ('{"next":{"0":', "}}")]))
            inner = json.dumps(parent[last])
            spliced.append((f"spliced-{len(spliced)}", opening * levels + inner + closing * levels))
            parent[last] = spliced[-1][0]
        elif how == "huge":
            huge = draw(st.sampled_from(["1" + "0" * 30, "-1" + "0" * 30, "9" * 4400, "1e300"]))
            spliced.append((f"spliced-{len(spliced)}", huge))
            parent[last] = spliced[-1][0]
        else:
            parent[last] = draw(st.sampled_from([math.nan, math.inf, -math.inf]))
    text = json.dumps(doc)
    for mark, replacement in reversed(spliced):
        text = text.replace(json.dumps(mark), replacement)
    if draw(st.integers(0, 9)) == 0:
        text = text[: draw(st.integers(0, len(text)))]
    return text


def _columns(doc) -> dict:
    with np.load(io.BytesIO(base64.b64decode(doc["strategy"]["columns"]))) as npz:
        return {name: npz[name] for name in npz.files}


def _with_columns(doc, arrays) -> dict:
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **arrays)
    doc = json.loads(json.dumps(doc))
    doc["strategy"]["columns"] = base64.b64encode(buffer.getvalue()).decode("ascii")
    return doc


@st.composite
def mutated_columns(draw, doc):
    """A Markov policy document with one of its columns replaced, reshaped, retyped or
    deleted."""
    arrays = _columns(doc)
    name = draw(st.sampled_from(sorted(arrays)))
    a = arrays[name]
    how = draw(st.sampled_from(["delete", "dtype", "shape", "values", "longer", "shorter"]))
    if how == "delete":
        del arrays[name]
    elif how == "dtype":
        arrays[name] = a.astype(draw(st.sampled_from([np.float64, np.int8, np.uint64, bool])))
    elif how == "shape":
        arrays[name] = a.reshape(1, -1) if a.ndim == 1 else a.reshape(-1)
    elif how == "values":
        flat = a.reshape(-1).copy()
        if len(flat):
            i = draw(st.integers(0, len(flat) - 1))
            info = np.iinfo(a.dtype) if a.dtype.kind in "iu" else None
            flat[i] = draw(
                st.sampled_from(
                    [0, 1, 64, 255] + ([info.min, info.max, -1] if info and info.min else [])
                )
                if info
                else st.sampled_from([math.nan, math.inf, -1.0, 0.0, 1e300])
            )
        arrays[name] = flat.reshape(a.shape)
    elif how == "longer":
        arrays[name] = np.concatenate([a, a[-1:]], axis=a.ndim - 1) if a.size else a
    else:
        arrays[name] = a[..., :-1]
    return json.dumps(_with_columns(doc, arrays))


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Real documents: a Markov policy (dice-cards n=3), deduction trees (Mastermind 2x3,
    permutation n=3) and a shard of Mastermind 3x3's openings."""
    tree = solve(load_game("mastermind(pegs=2,colors=3)")).export()
    permutation = solve(load_game("permutation(n=3)")).export()
    policy = solve(load_game("dice-cards(n=3)")).export()
    game = load_game("mastermind(pegs=3,colors=3)")
    shard = value_openings(game, range(len(openings(game))), 80).to_json()
    return {
        "tree": tree,
        "permutation": permutation,
        "policy": policy,
        "shard": shard,
        "dir": tmp_path_factory.mktemp("mutated"),
    }


def assert_accepted_or_refused(res) -> None:
    """Exit 0, or exit 2 with one line on stderr; never a traceback (exit 1)."""
    assert res.returncode in (0, 2), (res.returncode, res.stderr[-3000:])
    assert "Traceback" not in res.stderr, res.stderr[-3000:]
    if res.returncode == 2:
        assert len(res.stderr.strip().splitlines()) == 1, res.stderr


def _run_all(text: str, where, commands) -> None:
    path = where / "mutated.json"
    path.write_text(text)
    for command in commands:
        assert_accepted_or_refused(perfectplay(*command, str(path)))


SETTINGS = settings(
    max_examples=50,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@SETTINGS
@given(data=st.data())
def test_mutated_trees_are_accepted_or_refused_in_one_line(files, data):
    doc = files[data.draw(st.sampled_from(["tree", "permutation"]))]
    _run_all(data.draw(mutated(doc)), files["dir"], [["verify"], ["show"]])


@SETTINGS
@given(data=st.data())
def test_mutated_policies_are_accepted_or_refused_in_one_line(files, data):
    doc = files["policy"]
    text = data.draw(st.one_of(mutated(doc), mutated_columns(doc)))
    _run_all(text, files["dir"], [["verify"], ["show"]])


@SETTINGS
@given(data=st.data())
def test_mutated_shards_are_accepted_or_refused_in_one_line(files, data):
    _run_all(data.draw(mutated(files["shard"])), files["dir"], [["openings", "combine"]])
