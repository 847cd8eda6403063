"""Charge cannon: hold fire to charge a beam and release it just when it is long enough to reach the walker.

Rules
- The cannon stands in column 0 and moves up or down between rows 0-9.
- Walkers enter at column 9 in a random empty row (never two in one row) and walk left, one column
  every 2 or every 4 steps (each walker keeps its own pace, which is not shown). New walkers come
  faster and faster as time goes on.
- Holding fire charges the cannon by one cell per step, up to 9. Any other action releases the
  charge: a beam shoots right along the cannon's row from column 1 to column `charge`, destroying
  the walker in that row if it stands within the beam. A beam too short to reach does nothing, and
  releasing uses up the whole charge. Moving up or down also releases (the beam fires from the row
  the cannon was in, before it moves).
- Each step: charge or release, then move, then walkers walk, then new walkers enter.

Channels
- 0 player: the cannon (column 0).
- 1 danger: walkers.
- 3 projectile: the beam, on the step it is released.
- 5 gauge: the charge, drawn on the cannon's row from column 1 to column `charge` (so a walker
  covered by the gauge is in reach).

Actions: 2 up, 4 down, 5 fire (charge); all others release the charge and do nothing more.
Reward: +1 for each walker destroyed.
The episode ends when a walker reaches column 0, or after max_steps steps.
"""
import numpy as np

MAX_CHARGE = 9
PACES = (2, 4)  # steps per column walked
SPAWN_START = 12  # steps between walkers at the start ...
SPAWN_END = 4  # ... and at the end of the ramp
RAMP_STEPS = 600  # steps for the spawn interval to go from SPAWN_START to SPAWN_END


class ChargeCannonEnvironment:
    score_cap = 44.0
    max_steps = 1000

    def __init__(self, sticky_action_prob=0.1):
        self.sticky_action_prob = sticky_action_prob
        self.random = np.random.RandomState(0)
        self.reset()

    def seed(self, seed):
        self.random = np.random.RandomState(seed)

    def reset(self):
        self.row = 4
        self.charge = 0
        self.walkers = {}  # row -> [col, pace, steps until next move]
        self.beam = 0  # length of the beam released this step (0: none)
        self.beam_row = 0
        self.spawn_timer = 2
        self.steps = 0
        self.last_action = 0

    def act(self, action):
        if self.random.rand() < self.sticky_action_prob:
            action = self.last_action
        self.last_action = action
        reward = 0.0

        # Charge, or release the charge along the current row.
        self.beam = 0
        if action == 5:
            self.charge = min(MAX_CHARGE, self.charge + 1)
        elif self.charge > 0:
            self.beam, self.beam_row = self.charge, self.row
            walker = self.walkers.get(self.row)
            if walker is not None and walker[0] <= self.charge:
                del self.walkers[self.row]
                reward += 1.0
            self.charge = 0

        # Move.
        if action == 2:
            self.row = max(0, self.row - 1)
        elif action == 4:
            self.row = min(9, self.row + 1)

        # Walkers walk; one reaching column 0 ends the episode.
        terminal = False
        for walker in self.walkers.values():
            walker[2] -= 1
            if walker[2] == 0:
                walker[0] -= 1
                walker[2] = walker[1]
                if walker[0] == 0:
                    terminal = True

        # New walkers enter, more often as time goes on.
        self.spawn_timer -= 1
        if self.spawn_timer <= 0:
            empty = [r for r in range(10) if r not in self.walkers]
            if empty:
                row = empty[self.random.randint(len(empty))]
                pace = PACES[self.random.randint(len(PACES))]
                self.walkers[row] = [9, pace, pace]
            ramp = min(1.0, self.steps / RAMP_STEPS)
            interval = SPAWN_START + (SPAWN_END - SPAWN_START) * ramp
            self.spawn_timer = int(interval) + self.random.randint(3) - 1

        self.steps += 1
        return reward, terminal or self.steps >= self.max_steps

    def state(self):
        s = np.zeros((10, 10, 6), dtype=bool)
        s[self.row, 0, 0] = True
        for row, walker in self.walkers.items():
            s[row, walker[0], 1] = True
        if self.beam:
            s[self.beam_row, 1 : self.beam + 1, 3] = True
        s[self.row, 1 : self.charge + 1, 5] = True
        return s
