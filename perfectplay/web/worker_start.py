"""Imported by the server's fork server before it forks any worker (multiprocessing's
preload, which only imports): the workers' warm-up, ``warm.workers``."""

from .warm import workers

workers()
