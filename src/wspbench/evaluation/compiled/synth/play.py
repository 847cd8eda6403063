"""One entry point per operation over every hand-written synthetic twin, by its index in TWINS."""

from numba import njit

from wspbench.evaluation.compiled.synth import (
    beacon_keeper,
    bounce_paddle,
    charge_cannon,
    coin_runner,
    comet_catch,
    crossfire,
    duck_shot,
    ferry,
    firefighter,
    fruit_catch,
    gravity_flip,
    heat_gun,
    lane_switch,
    missile_defense,
    pogo_jump,
    river_hop,
    rockfall,
    shield_guard,
    snake_trail,
    treasure_dive,
)

TWINS = (
    beacon_keeper,
    bounce_paddle,
    charge_cannon,
    coin_runner,
    comet_catch,
    crossfire,
    duck_shot,
    ferry,
    firefighter,
    fruit_catch,
    gravity_flip,
    heat_gun,
    lane_switch,
    missile_defense,
    pogo_jump,
    river_hop,
    rockfall,
    shield_guard,
    snake_trail,
    treasure_dive,
)


@njit(cache=True)
def reset(code, s, keys, positions, g):
    if code == 0:
        beacon_keeper.reset(s, keys, positions, g)
    elif code == 1:
        bounce_paddle.reset(s, keys, positions, g)
    elif code == 2:
        charge_cannon.reset(s, keys, positions, g)
    elif code == 3:
        coin_runner.reset(s, keys, positions, g)
    elif code == 4:
        comet_catch.reset(s, keys, positions, g)
    elif code == 5:
        crossfire.reset(s, keys, positions, g)
    elif code == 6:
        duck_shot.reset(s, keys, positions, g)
    elif code == 7:
        ferry.reset(s, keys, positions, g)
    elif code == 8:
        firefighter.reset(s, keys, positions, g)
    elif code == 9:
        fruit_catch.reset(s, keys, positions, g)
    elif code == 10:
        gravity_flip.reset(s, keys, positions, g)
    elif code == 11:
        heat_gun.reset(s, keys, positions, g)
    elif code == 12:
        lane_switch.reset(s, keys, positions, g)
    elif code == 13:
        missile_defense.reset(s, keys, positions, g)
    elif code == 14:
        pogo_jump.reset(s, keys, positions, g)
    elif code == 15:
        river_hop.reset(s, keys, positions, g)
    elif code == 16:
        rockfall.reset(s, keys, positions, g)
    elif code == 17:
        shield_guard.reset(s, keys, positions, g)
    elif code == 18:
        snake_trail.reset(s, keys, positions, g)
    else:
        treasure_dive.reset(s, keys, positions, g)


@njit(cache=True)
def step(code, s, action, keys, positions, g):
    if code == 0:
        return beacon_keeper.step(s, action, keys, positions, g)
    elif code == 1:
        return bounce_paddle.step(s, action, keys, positions, g)
    elif code == 2:
        return charge_cannon.step(s, action, keys, positions, g)
    elif code == 3:
        return coin_runner.step(s, action, keys, positions, g)
    elif code == 4:
        return comet_catch.step(s, action, keys, positions, g)
    elif code == 5:
        return crossfire.step(s, action, keys, positions, g)
    elif code == 6:
        return duck_shot.step(s, action, keys, positions, g)
    elif code == 7:
        return ferry.step(s, action, keys, positions, g)
    elif code == 8:
        return firefighter.step(s, action, keys, positions, g)
    elif code == 9:
        return fruit_catch.step(s, action, keys, positions, g)
    elif code == 10:
        return gravity_flip.step(s, action, keys, positions, g)
    elif code == 11:
        return heat_gun.step(s, action, keys, positions, g)
    elif code == 12:
        return lane_switch.step(s, action, keys, positions, g)
    elif code == 13:
        return missile_defense.step(s, action, keys, positions, g)
    elif code == 14:
        return pogo_jump.step(s, action, keys, positions, g)
    elif code == 15:
        return river_hop.step(s, action, keys, positions, g)
    elif code == 16:
        return rockfall.step(s, action, keys, positions, g)
    elif code == 17:
        return shield_guard.step(s, action, keys, positions, g)
    elif code == 18:
        return snake_trail.step(s, action, keys, positions, g)
    else:
        return treasure_dive.step(s, action, keys, positions, g)


@njit(cache=True)
def observe(code, s, active):
    if code == 0:
        return beacon_keeper.observe(s, active)
    elif code == 1:
        return bounce_paddle.observe(s, active)
    elif code == 2:
        return charge_cannon.observe(s, active)
    elif code == 3:
        return coin_runner.observe(s, active)
    elif code == 4:
        return comet_catch.observe(s, active)
    elif code == 5:
        return crossfire.observe(s, active)
    elif code == 6:
        return duck_shot.observe(s, active)
    elif code == 7:
        return ferry.observe(s, active)
    elif code == 8:
        return firefighter.observe(s, active)
    elif code == 9:
        return fruit_catch.observe(s, active)
    elif code == 10:
        return gravity_flip.observe(s, active)
    elif code == 11:
        return heat_gun.observe(s, active)
    elif code == 12:
        return lane_switch.observe(s, active)
    elif code == 13:
        return missile_defense.observe(s, active)
    elif code == 14:
        return pogo_jump.observe(s, active)
    elif code == 15:
        return river_hop.observe(s, active)
    elif code == 16:
        return rockfall.observe(s, active)
    elif code == 17:
        return shield_guard.observe(s, active)
    elif code == 18:
        return snake_trail.observe(s, active)
    else:
        return treasure_dive.observe(s, active)
