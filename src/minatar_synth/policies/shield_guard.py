"""Scripted Shield Guard player: expectimax over the next few steps (sticky actions included) for the fewest hits."""

SIDE_ACTION = {0: 2, 1: 3, 2: 4, 3: 1}  # top -> up, right -> right, bottom -> down, left -> left
ACTION_SIDE = {a: s for s, a in SIDE_ACTION.items()}
TARGETS = (None, 0, 1, 2, 3)  # None = leave the shield where it is
HORIZON = 5
STICKY = 0.1


def _swing(side, target):
    if target is None or target == side:
        return side
    return (side + 1) % 4 if (target - side) % 4 == 2 else target


def policy(env):
    # cost[k][(a, b)]: weighted hits at step k + 1 when the shield is on a after step k and on b after k + 1.
    single = [[0.0] * 4 for _ in range(HORIZON)]  # hits unless on side s at step k
    double = [dict() for _ in range(HORIZON)]  # hits unless on s at step k or k - 1
    for side, _, d, speed in env.projectiles:
        k = 1 if d <= 0 else -(-d // speed)
        lands = d > 0 and d - k * speed == 0
        if lands and k < HORIZON:
            double[k][side] = double[k].get(side, 0.0) + 1.0 / (k + 1)
        elif k <= HORIZON:
            single[k - 1][side] += 1.0 / k

    def step_cost(k, prev, new):
        c = sum(w for s, w in enumerate(single[k]) if s != new)
        return c + sum(w for s, w in double[k].items() if s != new and s != prev)

    # value[(side, last_target)] after the final step is 0; work backwards.
    value = {(s, t): 0.0 for s in range(4) for t in TARGETS}
    for k in range(HORIZON - 1, -1, -1):
        new_value = {}
        for side in range(4):
            for last in TARGETS:
                best = None
                for target in TARGETS:
                    s1, s2 = _swing(side, target), _swing(side, last)
                    v = (1 - STICKY) * (step_cost(k, side, s1) + value[(s1, target)])
                    v += STICKY * (step_cost(k, side, s2) + value[(s2, last)])
                    if best is None or v < best[0]:
                        best = (v, target)
                new_value[(side, last)] = best[0]
                if k == 0 and side == env.side and last == ACTION_SIDE.get(env.last_action):
                    choice = best[1]
        value = new_value
    return 0 if choice is None else SIDE_ACTION[choice]
