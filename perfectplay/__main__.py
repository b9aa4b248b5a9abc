"""``python -m perfectplay`` runs the command line."""

from .cli import main

if __name__ == "__main__":  # not when a worker process re-imports the main module
    main()
