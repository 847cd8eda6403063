"""`python -m wspbench.cli`: the `wsp` command without the installed script."""

from wspbench.cli import app

app(prog_name="wsp")
