"""The deduction engine: a secret drawn uniformly from a finite set, guesses with feedback.

``engine`` is its one public face (what the screens and the registry reach); ``model``
(with ``restriction``) is the rules protocol games write. Inside, one job a module:
``feedback`` (the feedback table, built once), ``kernels`` and ``core`` (the compiled
search, one evaluator for every objective), ``search`` and ``root`` (the search seen
from Python, and a position's first guesses over lanes; ``Search.candidates``, the
canonical guesses, serves every caller), ``heuristics`` (seed 004's one-step scores),
``tree`` (strategy trees,
their statistics and JSON), ``verify`` (the one replayer), ``solve`` (``solve_deduction``
and ``suggest_guess``), ``openings`` (the proof over every opening, in shards). See
docs/deduction.md.
"""
