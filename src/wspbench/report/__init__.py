"""Seeing what a written network does: GIF replays, weight pictures, and reports over run directories.

Modules: answers (turn a reply into weights for either family), replay (animated GIF of the graded
episodes, with the engine's own action rule), weights (PNG of every tensor), runs (read `wsp run`
directories, confidence intervals), report (HTML, Markdown and PNG charts). See docs/exports.md.
"""
