"""A proof in shards: the records of a job split into slices, and their combination.

A shard is a slice of a game's openings valued against a known bound B on the total
(``perfectplay openings value``, ``deduction/openings.py``); its document records the
job (game, position, guess limit, bound) and one result per opening: its exact total
when within B, else the proof that it exceeds B. ``combine`` reads the documents of one
job: once they cover every opening, the least exact total is the optimum, proven, with
every opening that reaches it; if none is within B, the optimum exceeds B. These are
plain records, read by the command line without any engine.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from .errors import BadFile, Unsupported
from .verdict import FLAG, MAPPING, NUMBER, TEXT, Kind, check_kind, whole


#: The document kind of a shard file.
KIND = "perfectplay-openings"


@dataclass(frozen=True)
class Job:
    """What every shard of one proof shares: the game, the position, the guess limit, the
    bound and how many openings there are."""

    game: str
    params: dict
    after: str
    secrets: int
    limit: int
    bound: int
    openings: int


@dataclass(frozen=True)
class Valued:
    """One opening's result: its exact `total`, or (not `exact`) a proof that its total
    is at least `total`, which exceeds the job's bound; the seconds it took (to plan the
    other shards by)."""

    index: int
    guess: str
    total: int
    exact: bool
    seconds: float = 0.0


@dataclass
class Shard:
    """A shard's document: the job and the openings valued so far."""

    job: Job
    results: list[Valued] = field(default_factory=list)

    def to_json(self) -> dict:
        return {"kind": KIND, **asdict(self.job), "results": [asdict(r) for r in self.results]}

    @classmethod
    def from_json(cls, doc: Any, source: str) -> "Shard":
        """The shard in the document `doc` read from `source`, every field of its job and
        of its results of its kind (a whole number, a flag, text; the job's parameters
        text or whole numbers); BadFile naming `source` and the field if not. What the
        records claim is held against their game by the engine (``deduction/openings.py``)."""
        if not isinstance(doc, dict) or doc.get("kind") != KIND:
            raise BadFile(f"{source} is not a shard of openings (perfectplay openings value --out)")
        _check(doc, JOB_FIELDS, f"{source}: ")
        for key in doc["params"]:
            check_kind(doc["params"], key, PARAMETER, f"{source}: the parameter ")
        if not isinstance(doc.get("results"), list):
            raise BadFile(f"{source}: the shard has no list of results")
        for i, record in enumerate(doc["results"]):
            where = f"{source}: results[{i}]"
            if not isinstance(record, dict) or not set(record) <= set(RESULT_FIELDS):
                raise BadFile(f"{where} is not a result (fields: {', '.join(RESULT_FIELDS)})")
            _check(record, RESULT_FIELDS, f"{where}: its ", optional=("seconds",))
        job = Job(**{k: doc[k] for k in JOB_FIELDS})
        return cls(job, [Valued(**r) for r in doc["results"]])


#: What each field of a shard's job must be.
JOB_FIELDS = {
    "game": TEXT,
    "params": MAPPING,
    "after": TEXT,
    "secrets": whole(1),
    "limit": whole(1),
    "bound": whole(0),
    "openings": whole(1),
}
#: What each field of a result must be (``seconds`` may be left out).
RESULT_FIELDS = {
    "index": whole(0),
    "guess": TEXT,
    "total": whole(0),
    "exact": FLAG,
    "seconds": Kind("a number of seconds", lambda v: NUMBER.test(v) and v >= 0),
}
#: What a parameter of the job may be (as ``Game.params`` holds them).
PARAMETER = Kind("text or a whole number", lambda v: isinstance(v, str) or type(v) is int)


def _check(part: dict, fields: dict[str, Kind], where: str, optional: tuple = ()) -> None:
    """Each of `fields` is in `part` (unless `optional`) and of its kind; BadFile naming
    `where` and the field if not."""
    for name, kind in fields.items():
        if name not in part and name not in optional:
            raise BadFile(f"{where}{name} is missing")
        check_kind(part, name, kind, where)


@dataclass(frozen=True)
class Verdict:
    """What shards of one job prove together."""

    job: Job
    valued: int  # openings with a result
    missing: list[tuple[int, int]]  # ranges [a, b) of openings without one
    best: int | None  # least exact total (None: no opening within the bound)
    optimal: list[str]  # the openings reaching it

    @property
    def complete(self) -> bool:
        return not self.missing


def describe(job: Job) -> str:
    """The job in a few words, for messages."""
    params = ",".join(f"{k}={v}" for k, v in job.params.items())
    return (
        f"{job.game}({params}){' after ' + job.after if job.after else ''}, "
        f"{job.limit} guesses, bound {job.bound}"
    )


def combine(shards: list[Shard]) -> Verdict:
    """What `shards` (of one job) prove together; a one-line error if their jobs differ or
    two of them disagree on an opening."""
    if not shards:
        raise Unsupported("no shard to combine")
    job = shards[0].job
    by_index: dict[int, Valued] = {}
    for shard in shards:
        if shard.job != job:
            raise BadFile(f"shards of different jobs: {describe(job)} and {describe(shard.job)}")
        for r in shard.results:
            seen = by_index.setdefault(r.index, r)
            if (seen.total, seen.exact, seen.guess) != (r.total, r.exact, r.guess):
                raise BadFile(f"two shards disagree on opening {r.index} ({r.guess})")
    missing, start = [], None
    for k in range(job.openings + 1):
        if k < job.openings and k not in by_index:
            start = k if start is None else start
        elif start is not None:
            missing.append((start, k))
            start = None
    exact = [r for r in by_index.values() if r.exact]
    best = min((r.total for r in exact), default=None)
    optimal = sorted(r.guess for r in exact if r.total == best)
    return Verdict(job, len(by_index), missing, best, optimal)
