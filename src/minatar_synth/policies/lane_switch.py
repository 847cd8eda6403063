"""Scripted strong player for lane_switch: plans over the visible road for cans and fuel, sticky actions included."""

from minatar_synth.games.lane_switch import CAN, CAR, EMPTY, LANES, LEFT, NOOP, RIGHT, ROWS, SCROLL_PERIOD

HORIZON = 14
MOVES = (NOOP, LEFT, RIGHT)
DEATH = -60.0
FUEL_OUT = -30.0  # running dry is as final, but never worth a crash to avoid


def _step(lane, action):
    if action == LEFT:
        return max(0, lane - 1)
    if action == RIGHT:
        return min(LANES - 1, lane + 1)
    return lane


def _schedule(env):
    """For each planned step: the row that scrolls into row 9 at its end (None: no scroll)."""
    road, timer, done, out = env.road, env.timer, 0, []
    for _ in range(HORIZON):
        timer -= 1
        if timer == 0:
            timer = SCROLL_PERIOD
            done += 1
            out.append(road[ROWS - 1 - done] if done < ROWS else [EMPTY] * LANES)
        else:
            out.append(None)
    return out


def _outcome(plan, value, j, lane, action, fed, fuel):
    """Value of executing `action` at planned step j (0-based) from `lane`."""
    arriving = plan[j]
    nl = _step(lane, action)
    gain = 0.0
    if arriving is not None:
        if arriving[nl] == CAR:
            return DEATH
        gain = float(arriving[nl] == CAN)
    fed = fed or gain > 0
    if not fed and j + 1 >= fuel:
        return FUEL_OUT
    return gain + value[nl, action, fed]


def policy(env):
    plan = _schedule(env)
    fuel = env.fuel
    feds = (False, True) if fuel <= HORIZON else (True,)
    value = {
        (lane, last, fed): -0.01 * abs(lane - 2) for lane in range(LANES) for last in MOVES for fed in (False, True)
    }
    for j in range(HORIZON - 1, 0, -1):  # value before planned step j from the value after it
        new = dict(value)
        for lane in range(LANES):
            for last in MOVES:
                stuck = {fed: _outcome(plan, value, j, lane, last, fed, fuel) for fed in feds}
                for fed in feds:
                    best = max(_outcome(plan, value, j, lane, a, fed, fuel) for a in MOVES)
                    new[lane, last, fed] = 0.9 * best + 0.1 * stuck[fed]
        value = new
    start_fed = fuel > HORIZON
    best_a, best_v = NOOP, None
    for a in MOVES:
        v = _outcome(plan, value, 0, env.lane, a, start_fed, fuel)
        if best_v is None or v > best_v + 1e-9:
            best_a, best_v = a, v
    return best_a
