"""The SUPERBEAM ROM on the CHIP-8 machine: register roles, ETAB, the game's rules, determinism,
and the Python twin (superbeam.physics) matching the machine state for state."""

import random

import numpy as np
import pytest
from sb_helpers import level

from superbeam import levels as lv
from superbeam import physics
from superbeam.env import RULES, SuperBeamEnv, rom
from superbeam.levels import classic, generate


def run(env, action, steps):
    out = None
    for _ in range(steps):
        out = env.step(action)
        if out[2] or out[3]:
            break
    return out


def regs(env):
    r = env.backend.regs()
    return {"x": 8 * r[0xD] + r[0xA], "y": r[0xB], "vc": r[0xC], "cam": r[0xD], "ve": r[0xE]}


def test_rom_symbols_match_the_python_constants():
    sym = rom().sym
    assert sym["NCOL"] == lv.NCOL and sym["FLAG_COL"] == lv.FLAG_COL and sym["START_X"] == lv.START_X
    assert sym["FALL_PHASE"] == physics.FALL_PHASE and sym["LAST_PHASE"] == physics.LAST_PHASE
    env = SuperBeamEnv(0)
    ram = env.backend.read
    assert tuple(ram(sym["JTAB"], 16)) == physics.JTAB
    assert tuple(ram(sym["TOPS"], 4)) == lv.TOP
    assert tuple(ram(sym["STAND_Y"], 4)) == lv.STAND_Y
    assert tuple(ram(sym["COIN_ROW"], 4)) == lv.COIN_ROW
    assert sum(v - 8 for v in physics.JTAB[: physics.FALL_PHASE] if v < 8) == -10  # a jump rises 10 px


def test_register_roles_and_etab_layout():
    L = level("########", walkers=[(10, 0), (12, 1)])
    env = SuperBeamEnv(L)
    assert regs(env) == {"x": 8, "y": 18, "vc": 8, "cam": 0, "ve": 18}
    et = env.sym["ETAB"]
    assert [env.backend.ram(et + i) for i in range(8)] == [1, 10, 0, 0, 1, 12, 0, 1]
    assert env.live_level() == L.columns
    run(env, 2, 10)  # 40 frames right: 40 px; walkers step 1 px every other frame
    assert regs(env)["x"] == 48 and regs(env)["cam"] == 4 and env.backend.V[0xA] == 16
    assert [env.backend.ram(et + i) for i in range(8)] == [1, 7, 4, 0, 1, 14, 4, 1]
    assert env.walkers() == [(1, 7, 4, 0), (1, 14, 4, 1)]


def test_jump_rises_10px_and_is_a_tap():
    env = SuperBeamEnv(level("########"))
    ys = []
    env.step(3)
    ys.append(regs(env)["y"])
    for _ in range(6):
        env.step(0)
        ys.append(regs(env)["y"])
    # 4 frames per step: 18 -> 12 -> 9 (min 8 after 7 frames) ... lands back on 18 after 18 frames
    assert min(ys) == 8 and ys[-1] == 18 and regs(env)["x"] == 8
    # holding jump does not jump again: only the first frame of a step presses it
    env = SuperBeamEnv(level("########"))
    env.backend.set_keys([5])
    for _ in range(40):
        env.backend.run_frame()
    assert regs(env)["y"] == 18  # one jump, then standing with the key still down
    assert env.backend.V[0xC] == 8


def test_standing_heights_and_tall_pipe_needs_a_pipe():
    env = SuperBeamEnv(level("###h####"))
    run(env, 4, 1)
    run(env, 2, 3)
    assert regs(env)["y"] == 10 and regs(env)["ve"] == 10  # on the pipe
    env = SuperBeamEnv(level("###H####"))
    for _ in range(30):  # jump at the tall pipe again and again: never gets on it
        env.step(4)
    assert regs(env)["x"] <= 16 and regs(env)["y"] in (18,) + tuple(range(8, 18))
    env = SuperBeamEnv(level("##hH####"))
    for _ in range(12):
        env.step(4)
        if regs(env)["y"] == 2:
            break
    assert regs(env)["y"] == 2 and regs(env)["ve"] == 2  # climbed from the pipe


@pytest.mark.parametrize("text", ["#### ###", "####  ##"])
def test_gaps_kill(text):
    env = SuperBeamEnv(level(text))
    obs, reward, terminated, truncated, info = run(env, 2, 40)
    assert terminated and info["dead"] and info["cause"] == "fell into a gap" and reward < 0


def test_walker_kills_from_the_side_and_dies_from_above():
    env = SuperBeamEnv(level("##########", walkers=[(6, 0)]))
    _, _, terminated, _, info = run(env, 2, 30)
    assert terminated and info["cause"] == "hit a walker"
    env = SuperBeamEnv(level("##########", walkers=[(6, 0)]))
    run(env, 0, 4)  # let it come closer: it moves 8 px in 16 frames, to x 40
    run(env, 4, 1)
    run(env, 2, 8)
    assert env.walkers()[0][0] == 0 and not env.dead  # squashed while falling onto it


def test_reward_and_info_for_a_win():
    env = SuperBeamEnv(level("#" * 48, coins={5: lv.COIN_LOW, 9: lv.COIN_MID}))
    total, info = 0.0, {}
    for _ in range(200):
        _, r, term, trunc, info = env.step(2)
        total += r
        if term or trunc:
            break
    assert info["won"] and info["best_progress"] == 1.0 and info["coins"] == 1 and info["coins_total"] == 2
    assert total == pytest.approx(100 + 5 + 50)
    assert info["frames"] == lv.WIN_X - lv.START_X and info["deaths"] == 0


def test_time_limit_truncates():
    env = SuperBeamEnv(level("#" * 48), max_frames=40)
    _, _, term, trunc, info = run(env, 0, 100)
    assert trunc and not term and info["frames"] == 40


def test_determinism():
    def episode():
        env = SuperBeamEnv(3, 0.8)
        rng = random.Random(7)
        screens, out = [], []
        for _ in range(150):
            obs, r, term, trunc, info = env.step(rng.choice([2, 2, 4, 0, 3]))
            screens.append(obs.copy())
            out.append((r, env.backend.regs(), env.live_level()))
            if term or trunc:
                break
        return screens, out

    a, b = episode(), episode()
    assert a[1] == b[1] and all(np.array_equal(x, y) for x, y in zip(a[0], b[0], strict=False))


def _state(env):
    r, ram, sym = env.backend.regs(), env.backend.ram, env.sym
    return (
        8 * r[13] + r[10],
        r[11],
        r[12],
        r[14],
        r[13],
        ram(sym["STATUS"]),
        ram(sym["COINS"]),
        ram(sym["PHASE"]),
        env.live_level(),
        [list(w) for w in env.walkers()],
    )


def _twin(g):
    return (g.x, g.y, g.vc, g.ve, g.cam, g.status, g.coins, g.phase, bytes(g.level), g.walkers)


@pytest.mark.parametrize("seed", range(12))
def test_python_twin_matches_the_machine(seed):
    L = classic() if seed == 0 else generate(seed, (0.2, 0.5, 0.8)[seed % 3])
    rng = random.Random(seed)
    env, g = SuperBeamEnv(L), physics.Game(L)
    frames = 0
    assert _state(env) == _twin(g)
    for _ in range(150):
        a = rng.choice([2, 2, 2, 4, 4, 0, 3, 1, 5])
        _, _, term, trunc, _ = env.step(a)
        frames += physics.step(g, a, 4, 600, frames)
        assert _state(env) == _twin(g)
        if term or trunc:
            break


def test_screen_text_and_facts():
    env = SuperBeamEnv(level("#####h##", coins={3: lv.COIN_LOW}, walkers=[(6, 0)]))
    text = env.screen_text().splitlines()
    assert len(text) == 16 and all(len(line) == 32 for line in text)
    joined = "\n".join(text)
    for ch in "P#HoE":
        assert ch in joined
    assert "standing on the ground" in env.facts() and "coins 0/1" in env.facts()
    assert env.observation().shape == (32, 64) and env.observation().sum() > 0
    assert "Actions:" in RULES
