"""The harness: run a chat model through a protocol on tasks, grade its weights with the same functions
as `wsp grade`, and keep a complete, resumable record (see docs/harness.md).

Modules: prompts (versioned templates), base (the task-family interface), minatar_family and
superbeam_family (the families), families (task ids and selectors), clients (OpenAI-compatible and
offline models), protocols (one-shot, feedback), runs (run directory, resume, batches), summary and
display (tables, live view).
"""
