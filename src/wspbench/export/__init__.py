"""Exports: the registry's tasks in the formats people already use.

Modules: harbor (Harbor task folders, registry.json, dataset.toml; their grading step is `wspbench.verifier`),
jsonl (dataset rows), openenv_server and grade_pool (an OpenEnv server). Every one reads its tasks from
`wspbench.tasks` and carries the suite. See docs/exports.md.
"""
