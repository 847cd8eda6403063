"""Original MinAtar-style games of the wspbench project (one module per game in `games/`)."""
