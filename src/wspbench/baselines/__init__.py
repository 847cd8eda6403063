"""What a model's score is read against, and how it was made: the PPO trainer (`ppo.py`) and the networks it
trained (`trained/`, the `trained` offline model), the evolution-strategy search (`search.py`), the hindsight
bound on what a game allows (`bound.py`), the measured scores of simple players (`measured.py`,
`baselines.json`), and the builder of reading sets, whose networks the trainer makes (`reading_build.py`). Above
the tasks: everything here plays tasks through their contract.
"""
