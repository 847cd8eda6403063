"""The harness: run a chat model through a protocol on registry tasks (`wspbench/tasks/`), grade its
weights with the task's own `grade`, and keep a complete, resumable, typed record (see docs/harness.md).

Modules: clients (OpenAI-compatible and offline models), protocols (one-shot, feedback), record (the
typed, versioned run record and its one reader), runs (run directory, resume, batches), summary and
display (tables, live view).
"""
