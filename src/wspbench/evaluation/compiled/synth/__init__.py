"""Compiled twins of the hand-written synthetic games (`minatar_synth/games/`), one module per game.

A twin steps, observes and resets its game on a state row exactly as the module does, with every random call in
the module's order (see `../common.py` for the row's layout and `../generated.py` for the generated games). Its
`SOURCE_SHA256` is the digest of the module text it follows: when the module changes, the engine plays the
module in Python until the twin is brought up to date (`wspbench/evaluation/compiled/engine.py`, `twin_of`).
"""
