"""Exports: the tasks in the formats people already use (Harbor task folders, JSONL/Parquet rows).

Modules: catalog (one description of each task, built from the harness's own prompt rendering and
grading functions), harbor (task folders, registry.json, dataset.toml), verifier_steps (what a Harbor
task's tests/test.sh runs around `wsp verify`), jsonl (dataset rows). See docs/exports.md.
"""
