"""The deduction engine: a secret drawn uniformly from a finite set, guesses with feedback.

Modules, one job each: ``model`` (the rules protocol and its conformance checker),
``feedback`` (the feedback table of a game, built once), ``kernels`` (numba inner loops),
``partition`` (splitting a consistent set by a guess), ``symmetry`` (canonical guesses
under the symmetries a history leaves), ``heuristics`` (seed 004's one-step scores),
``search`` (exact branch-and-bound), ``parallel`` (first guesses on several
processes), ``tree`` (strategy trees, their statistics and JSON), ``verify``
(replaying an exported tree), ``solve`` (the engine's entry points: ``solve_deduction``
and ``suggest_guess``, the best guess for any consistent set). See docs/deduction.md.
"""
