"""``python -m perfectplay`` runs the command line."""

from .cli import main

main()
