"""Scripted Snake Trail player: shortest safe path to the food, else keep room and follow its own tail."""

from collections import deque

from minatar_synth.games.snake_trail import GRID, HUNGER_LIMIT, MOVE_EVERY, MOVES

STARVING_MARGIN = 3  # take an unsafe path to the food when fewer spare moves than this are left


def _neighbours(cell):
    for action, (dr, dc) in MOVES.items():
        yield action, ((cell[0] + dr) % GRID, (cell[1] + dc) % GRID)


def _path(start, goal, blocked):
    """Shortest list of actions from start to goal avoiding blocked cells, or None."""
    previous = {start: None}
    queue = deque([start])
    while queue:
        cell = queue.popleft()
        if cell == goal:
            actions = []
            while previous[cell] is not None:
                cell, action = previous[cell]
                actions.append(action)
            return actions[::-1]
        for action, nxt in _neighbours(cell):
            if nxt not in previous and (nxt not in blocked or nxt == goal):
                previous[nxt] = (cell, action)
                queue.append(nxt)
    return None


def _follow(body, actions, food):
    """The body after taking actions (growing when the food is reached)."""
    body = list(body)
    for action in actions:
        dr, dc = MOVES[action]
        head = ((body[0][0] + dr) % GRID, (body[0][1] + dc) % GRID)
        body.insert(0, head)
        if head != food:
            body.pop()
    return body


def _area(start, blocked):
    seen, queue = {start}, deque([start])
    while queue:
        cell = queue.popleft()
        for _, nxt in _neighbours(cell):
            if nxt not in seen and nxt not in blocked:
                seen.add(nxt)
                queue.append(nxt)
    return len(seen)


def policy(env):
    body, food, rocks = env.body, env.food, env.rocks
    head = body[0]
    reverse = (-env.heading[0], -env.heading[1])
    path = _path(head, food, rocks | set(body[:-1]))
    moves_left = (HUNGER_LIMIT - env.hunger) // MOVE_EVERY
    if path and MOVES[path[0]] != reverse and len(path) <= moves_left:
        after = _follow(body, path, food)
        if _path(after[0], after[-1], rocks | set(after[1:-1])) is not None:
            return path[0]
        if len(path) + STARVING_MARGIN >= moves_left:
            return path[0]  # risky, but waiting longer means starving
    # No safe meal now: keep the most room, the tail reachable, and wander far from the tail.
    best, best_key = None, None
    for action, cell in _neighbours(head):
        if MOVES[action] == reverse or cell in rocks or cell in body[:-1]:
            continue
        after = _follow(body, [action], food)
        tail_path = _path(after[0], after[-1], rocks | set(after[1:-1]))
        key = (tail_path is not None, _area(cell, rocks | set(after[1:])), len(tail_path or ()))
        if best_key is None or key > best_key:
            best, best_key = action, key
    if best is None:
        return path[0] if path else 0
    return best
