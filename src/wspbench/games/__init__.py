"""Adapters that turn a game into a 10x10x6 grid environment with the MinAtar action set."""
