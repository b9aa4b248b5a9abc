"""The Markov solver's speed-ups (``solve_markov(speedups=...)``, ``--without``)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SpeedUps:
    """Which speed-ups the Markov solver uses (all on by default; off changes only the time).

    components  strong components of at most ``solve.LOCAL_BLOCK`` states solved one at a
                time, successors first (off: sweeps over the whole graph and policy
                iteration, as for a game with a large cycle)
    blocks      a game that keeps its cycles within blocks of codes
                (``MarkovGame.cycle_span``) solved block by block in code order, blocks
                of any size, no strong components sought (off: Tarjan's components, as
                for any game)
    streamed    such a game of more than ``solve.EXACT_STATES`` states solved block by
                block as its rules are read, no graph kept (``markov.streamed``; off: the
                graph explored, kept, then solved by blocks; the same bits). Not where
                its blocks need more room than ``solve.STREAM_ROOM`` and the graph it
                spares: the graph is kept then, and the command line says so
    packed      sweeps read each state's distinct (target, cost) pairs once
                (``compile.Pairs``; off: every choice's target; the same values bit for bit)
    merged      policy evaluation merges a state's outcomes that choose the same pair
                (off: one entry per outcome)
    warm        value iteration warms policy iteration up to a loose tolerance
                (``solve.WARM_START``; off: the tighter ``solve.WARM_TOL``)
    renumber    a graph of more than ``solve.RENUMBER_STATES`` states renumbered into
                the visiting order, so that the sweeps read its arrays front to back
                (off: swept through the order)
    code_order  a game that ends at high codes (``MarkovGame.ends_at_high_codes``) swept
                in decreasing code order, without an order computed or a renumbering
                (off: the solver's own order, as for any game)
    halves      a graph of more than ``solve.RENUMBER_STATES`` states swept (in a game's
                code order) and improved, and its greedy choices taken, in two halves at
                once, on two threads (``markov.halves``; off: over the whole graph, on
                one thread)
    stages      a game that declares its stages (``MarkovGame.stages``) solved stage by
                stage (``markov.stages``), one value kept a stage (off: its states, derived
                from the stages, explored as a graph and solved, exactly where sizes
                allow, as any game's)
    """

    components: bool = True
    packed: bool = True
    merged: bool = True
    warm: bool = True
    renumber: bool = True
    code_order: bool = True
    halves: bool = True
    blocks: bool = True
    streamed: bool = True
    stages: bool = True
