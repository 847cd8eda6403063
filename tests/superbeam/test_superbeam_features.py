"""features(env) against values worked out by hand for constructed situations.

Each case puts the player (registers VA, VB, VC, VD, VE) and the walkers (ETAB) into a known
state on a level drawn as text; the expected vector, in the order
[standing, height, gap_dist, gap_width, wall_dist, wall_height, walker_dist, vy], is derived in
the comment from the definitions (front edge = world x + 8, feet = y + 6).
"""

import numpy as np
from sb_helpers import level, put

from superbeam.env import SuperBeamEnv
from superbeam.features import FEATURE_NAMES, FEATURES, features
from wspbench.networks import SUPERBEAM_NETWORK
from wspbench.tasks.superbeam import reference_weights


def feats(text, x, y, vc=8, ve=None, walkers=()):
    env = SuperBeamEnv(level(text))
    put(env, x, y, vc, ve, walkers)
    return features(env).tolist()


def test_names_match_the_reference_order():
    assert FEATURE_NAMES == [
        "standing",
        "height",
        "gap_dist",
        "gap_width",
        "wall_dist",
        "wall_height",
        "walker_dist",
        "vy",
    ]
    assert all(desc for _, desc in FEATURES)


def test_start_of_a_level_is_what_reset_gives():
    env = SuperBeamEnv(level("####  ##"))
    regs = env.backend.regs()
    assert (regs[0xA], regs[0xB], regs[0xC], regs[0xD], regs[0xE]) == (8, 18, 8, 0, 18)
    # front = 16; the gap is columns 4-5 (x 32..47): 16 px ahead, 16 wide; no wall, no walker.
    assert features(env).tolist() == [1, 0, 16, 16, 32, 0, 32, 0]


def test_standing_on_ground_with_a_walker_ahead():
    # x = 8, front 16; walker 0 at column 3 offset 4 -> x 28, 12 px ahead; walker 1 dead.
    assert feats("####  ##", 8, 18, walkers=[(1, 3, 4, 0), (0, 2, 0, 0)]) == [1, 0, 16, 16, 32, 0, 12, 0]


def test_standing_on_a_pipe_before_a_tall_pipe():
    # pipes in columns 3-4 (top 16), tall pipe in 5 (top 8), gap in 8. x = 26 on the pipe: y 10,
    # feet 16, height 8. front 34: the tall pipe starts at 40 -> wall 6 px ahead, 16 - 8 = 8 higher.
    # The gap starts at 64: 30 px ahead (within 32), 8 wide.
    assert feats("###hhH## ##", 26, 10) == [1, 8, 30, 8, 6, 8, 32, 0]


def test_standing_on_a_tall_pipe_sees_no_wall():
    # on the tall pipe (y 2, feet 8, height 16): nothing is higher; the gap at 48 is 48-40 = 8 ahead.
    assert feats("###hH# ##", 32, 2) == [1, 16, 8, 8, 32, 0, 32, 0]


def test_mid_jump():
    # rising at -2 px/frame at y 12 over the ground (VE 18): not standing, feet 18, height 6,
    # vy -2; the pipe in column 5 (x 40, top 16 < feet 18) is 40 - 28 = 12 ahead and 2 px higher.
    assert feats("#####h##", 20, 12, vc=6, ve=18) == [0, 6, 32, 0, 12, 2, 32, -2]
    # falling at +1 above a gap (VE 26): vy 1; the gap under the player counts as 0 ahead.
    assert feats("###  ###", 30, 9, vc=9, ve=26) == [0, 9, 0, 16, 32, 0, 32, 1]


def test_gap_under_the_front_edge():
    # x 28 stands on column 3; its front edge (36) is over the gap in column 4 (x 32..39).
    assert feats("#### ###", 28, 18) == [1, 0, 0, 8, 32, 0, 32, 0]
    # one pixel before the gap: x 24, front 32 = gap start -> 0; at x 23, 1.
    assert feats("#### ###", 24, 18)[2] == 0
    assert feats("#### ###", 23, 18)[2] == 1


def test_walker_touching_and_out_of_range():
    # walker 3 px into the player (x 33 vs front 36): touching -> 0.
    assert feats("########", 28, 18, walkers=[(1, 4, 1, 0)])[6] == 0
    # walkers wholly behind (x 28 - 9 = 19 -> d = -17) or 33 px ahead are not seen.
    assert feats("########", 28, 18, walkers=[(1, 2, 3, 1), (1, 8, 5, 0)])[6] == 32
    # exactly 32 px ahead (x 68) is seen (and is 32); the nearer of two (x 43: 7 ahead) wins.
    assert feats("########", 28, 18, walkers=[(1, 8, 4, 0), (1, 5, 3, 0)])[6] == 7


def act(weights, x) -> int:
    """The action the task's network takes (its action rule: the first largest logit)."""
    return int(np.argmax(SUPERBEAM_NETWORK.forward_one(weights, x)))


def test_reference_network_acts_on_these_situations():
    w = reference_weights()
    assert act(w, np.array(feats("#### ###", 28, 18), dtype=float)) == 4  # gap under the front: jump
    assert act(w, np.array(feats("####  ##", 8, 18), dtype=float)) == 2  # gap 16 px away: run
    assert act(w, np.array(feats("###hhH## ##", 32, 10), dtype=float)) == 4  # touching the tall pipe
    assert act(w, np.array(feats("#####h##", 20, 12, vc=6, ve=18), dtype=float)) == 2  # in the air
