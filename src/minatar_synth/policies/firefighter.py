"""Scripted Firefighter player: bombs the cheapest nearby fire not already covered by falling water, and waits
mid-village."""

NEED_WEIGHT = 3.0  # each bomb a fire still needs counts as this many columns of flying


def policy(env):
    need = list(env.fire)
    for _, col in env.drops:
        need[col] -= 1
    if need[env.plane] > 0:
        return 5 if env.tank > 0 else 0
    best, best_score = None, None
    for col in range(10):
        if need[col] > 0:
            score = abs(col - env.plane) + NEED_WEIGHT * need[col]
            if best_score is None or score < best_score:
                best, best_score = col, score
    if best is None:  # nothing to do: wait over the middle of the standing houses
        standing = [col for col in range(10) if env.houses[col]]
        if not standing:
            return 0
        best = standing[len(standing) // 2]
        if best == env.plane:
            return 0
    return 1 if best < env.plane else 3
