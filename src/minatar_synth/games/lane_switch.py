"""Lane Switch: drive down a five-lane road, switching lanes to grab fuel cans and miss the cars.

Rules
- The road has 5 lanes, each 2 columns wide (lane i is columns 2i and 2i+1). The player's car sits
  in row 9 and moves one lane left or right per step (it stops at the road edges).
- The road scrolls down one row every SCROLL_PERIOD (2) steps: all cars and fuel cans move down one
  row and a new row with random cars and cans appears in row 0 (at the start, rows 0-5 are already
  filled). More cars appear as time goes on. The road always keeps an open corridor: one lane of
  every new row is free of cars, and it is the same as, or next to, the open lane of the row
  before it.
- The player changes lane first, then the road may scroll. Whatever scrolls into row 9 meets the
  player only if it is in the player's lane: a car there crashes into the player and ends the
  episode, a fuel can there is picked up (+1 reward, and the tank is refilled). Things reaching
  row 9 in the other lanes are overtaken and vanish, so row 9 only ever holds the player.
- The tank holds FUEL_MAX units and loses one each step; the episode ends when it runs dry, so the
  player has to keep collecting cans. The episode also ends after MAX_STEPS steps.

Channels (state()[row, col, channel])
- 0 player: the player's car (2 cells in row 9).
- 1 danger: cars (2 cells each).
- 2 reward: fuel cans (2 cells each).
- 4 trail: right after a scroll, the cells just above each car and can (where it was on the
  previous step). No trail means the road did not move on the last step, so it scrolls at the end
  of this one.
- 5 gauge: fuel left, as lit cells in row 0 from column 0 (10 cells = full tank).

Actions: 1 left, 3 right; all others do nothing.
"""
import numpy as np

LANES = 5
LANE_WIDTH = 2
ROWS = 10
PLAYER_ROW = 9
MAX_STEPS = 1000
SCROLL_PERIOD = 2
FUEL_MAX = 60
CAN_CHANCE = 0.10           # chance that a lane of a new row holds a fuel can
CAR_CHANCE_START = 0.08     # chance that a lane of a new row holds a car at step 0 ...
CAR_CHANCE_GROWTH = 0.00008  # ... plus this much per step (up to CAR_CHANCE_MAX)
CAR_CHANCE_MAX = 0.16

NOOP, LEFT, UP, RIGHT, DOWN, FIRE = range(6)
PLAYER, DANGER, REWARD, TRAIL, GAUGE = 0, 1, 2, 4, 5
EMPTY, CAR, CAN = 0, 1, 2


class LaneSwitchEnvironment:
    score_cap = 180.0
    max_steps = MAX_STEPS

    def __init__(self, sticky_action_prob=0.1):
        self.sticky_action_prob = sticky_action_prob
        self.random = np.random.RandomState(0)
        self.reset()

    def seed(self, seed):
        self.random = np.random.RandomState(seed)

    def reset(self):
        self.lane = LANES // 2
        self.corridor = LANES // 2  # the open lane of the newest row
        self.steps = 0
        # road[row][lane] is EMPTY, CAR or CAN; rows 0-5 start filled, rows 6-9 empty
        self.road = [[EMPTY] * LANES for _ in range(ROWS)]
        for _ in range(ROWS - 4):
            self.road = [self._new_row()] + self.road[:-1]
        self.timer = SCROLL_PERIOD  # steps until the next scroll
        self.scrolled = False       # did the road scroll during the last step?
        self.fuel = FUEL_MAX
        self.last_action = 0
        self.terminal = False

    def _new_row(self):
        car_chance = min(CAR_CHANCE_MAX, CAR_CHANCE_START + CAR_CHANCE_GROWTH * self.steps)
        row = []
        for _ in range(LANES):
            u = self.random.rand()
            row.append(CAR if u < car_chance else CAN if u < car_chance + CAN_CHANCE else EMPTY)
        # the corridor drifts by at most one lane per row and is never blocked
        self.corridor = min(LANES - 1, max(0, self.corridor + int(self.random.rand() * 3) - 1))
        if row[self.corridor] == CAR:
            row[self.corridor] = EMPTY
        return row

    def _scroll(self):
        """Move the road down one row; returns the reward for what reaches the player."""
        self.road = [self._new_row()] + self.road[:-1]
        thing = self.road[PLAYER_ROW][self.lane]
        self.road[PLAYER_ROW] = [EMPTY] * LANES  # overtaken or met: gone either way
        if thing == CAR:
            self.terminal = True
        elif thing == CAN:
            self.fuel = FUEL_MAX
            return 1.0
        return 0.0

    def act(self, action):
        if self.random.rand() < self.sticky_action_prob:
            action = self.last_action
        self.last_action = action
        if self.terminal:
            return 0.0, True

        if action == LEFT and self.lane > 0:
            self.lane -= 1
        elif action == RIGHT and self.lane < LANES - 1:
            self.lane += 1
        reward = 0.0
        self.timer -= 1
        self.scrolled = self.timer == 0
        if self.scrolled:
            reward = self._scroll()
            self.timer = SCROLL_PERIOD

        self.steps += 1
        self.fuel -= 1
        if self.fuel <= 0 or self.steps >= MAX_STEPS:
            self.terminal = True
        return reward, self.terminal

    def state(self):
        s = np.zeros((ROWS, LANES * LANE_WIDTH, 6), dtype=bool)
        c = self.lane * LANE_WIDTH
        s[PLAYER_ROW, c, PLAYER] = s[PLAYER_ROW, c + 1, PLAYER] = True
        for r in range(PLAYER_ROW):  # row 9 holds nothing but the player
            for lane, thing in enumerate(self.road[r]):
                if thing != EMPTY:
                    c = lane * LANE_WIDTH
                    channel = DANGER if thing == CAR else REWARD
                    s[r, c, channel] = s[r, c + 1, channel] = True
                    if self.scrolled and r > 0:
                        s[r - 1, c, TRAIL] = s[r - 1, c + 1, TRAIL] = True
        lit = -(-10 * self.fuel // FUEL_MAX)  # ceil(10 * fuel / FUEL_MAX)
        s[0, :lit, GAUGE] = True
        return s
