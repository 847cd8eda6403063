"""The `wsp` command: parses arguments, calls the library, prints tables. No logic of its own.

`app.py` holds the application and shared helpers; each module beside it adds the commands of one topic.
Commands import what they need when they run, so `wsp --help` starts fast.
"""

from wspbench.cli import exports, grading, pictures, reading, runs, superbeam  # noqa: F401 - each registers its commands
from wspbench.cli.app import app

__all__ = ["app"]
