"""Duck shot: lead ducks flying across the sky with a gun that fires straight up from the bottom row.

Rules
- One duck at a time flies along row 1, 2 or 3. It enters at the left or right edge and flies
  straight across, one or two columns per step (each duck keeps its speed), until it is hit or
  leaves the board. A new duck appears a few steps after the last one is gone.
- The gun sits on the bottom row (row 9) and moves one column left or right per step.
- Fire launches a shot from the gun's cell. Each step the shot rises two rows, one row at a time,
  and then the duck moves; the duck is hit if it shares a cell with the shot after any of these
  moves (a fast duck can jump over the shot). The shot needs three to four steps to reach the
  ducks, so aim ahead of the duck. Only one shot can be in the air at a time; fire is ignored
  while a shot flies or when the ammunition is spent.
- Every shot costs one round of ammunition and a hit gives the round back, so only misses use up
  ammunition. The gun starts with 10 rounds.

Channels
- 0 player: the gun (row 9).
- 2 reward: the duck.
- 3 projectile: the shot.
- 4 trail: the cell the duck occupied on the previous step (its direction and speed).
- 5 gauge: row 0, one lit cell per round of ammunition left (columns 0 .. ammo-1).

Actions: 1 left, 3 right, 5 fire; all others do nothing.
Reward: +1 for each duck hit.
The episode ends when the ammunition is spent and no shot is in the air, or after max_steps steps.
"""
import numpy as np

GUN_ROW = 9
DUCK_ROWS = (1, 2, 3)
SHOT_SPEED = 2  # rows per step
DUCK_SPEEDS = (1, 2)  # columns per step
AMMO = 10
SPAWN_DELAY = (1, 5)  # steps between ducks: randint(low, high)


class DuckShotEnvironment:
    score_cap = 98.0
    max_steps = 1000

    def __init__(self, sticky_action_prob=0.1):
        self.sticky_action_prob = sticky_action_prob
        self.random = np.random.RandomState(0)
        self.reset()

    def seed(self, seed):
        self.random = np.random.RandomState(seed)

    def reset(self):
        self.gun = 4
        self.shot = None  # [row, col] of the shot in the air
        self.duck = None  # [row, col, direction] with direction -1 (left) or +1 (right)
        self.trail = None  # (row, col) the duck occupied on the previous step
        self.ammo = AMMO
        self.spawn_timer = 1
        self.steps = 0
        self.last_action = 0

    def act(self, action):
        if self.random.rand() < self.sticky_action_prob:
            action = self.last_action
        self.last_action = action
        reward = 0.0

        # Gun: move or fire.
        if action == 1:
            self.gun = max(0, self.gun - 1)
        elif action == 3:
            self.gun = min(9, self.gun + 1)
        elif action == 5 and self.shot is None and self.ammo > 0:
            self.shot = [GUN_ROW, self.gun]
            self.ammo -= 1

        # The shot rises one row at a time, checking for the duck in each row.
        if self.shot is not None:
            for _ in range(SHOT_SPEED):
                self.shot[0] -= 1
                if self.shot[0] < 0:
                    self.shot = None
                    break
                if self._duck_at(self.shot):
                    reward += self._hit()
                    break

        # The duck flies one column; it can also fly into the shot.
        if self.duck is not None:
            row, col, direction = self.duck
            self.trail = (row, col)
            self.duck[1] = col + direction
            if not 0 <= self.duck[1] <= 9:
                self.duck = None
                self.trail = None
                self.spawn_timer = self.random.randint(*SPAWN_DELAY)
            elif self.shot is not None and self._duck_at(self.shot):
                reward += self._hit()

        # A new duck enters at an edge when the sky has been empty long enough.
        if self.duck is None:
            self.spawn_timer -= 1
            if self.spawn_timer <= 0:
                row = DUCK_ROWS[self.random.randint(len(DUCK_ROWS))]
                speed = DUCK_SPEEDS[self.random.randint(len(DUCK_SPEEDS))]
                if self.random.rand() < 0.5:
                    self.duck = [row, 0, speed]
                else:
                    self.duck = [row, 9, -speed]

        self.steps += 1
        out_of_ammo = self.ammo == 0 and self.shot is None
        return reward, out_of_ammo or self.steps >= self.max_steps

    def _duck_at(self, cell):
        return self.duck is not None and self.duck[0] == cell[0] and self.duck[1] == cell[1]

    def _hit(self):
        self.duck = None
        self.trail = None
        self.shot = None
        self.ammo += 1  # a hit gives the round back
        self.spawn_timer = self.random.randint(*SPAWN_DELAY)
        return 1.0

    def state(self):
        s = np.zeros((10, 10, 6), dtype=bool)
        s[GUN_ROW, self.gun, 0] = True
        if self.duck is not None:
            s[self.duck[0], self.duck[1], 2] = True
        if self.shot is not None:
            s[self.shot[0], self.shot[1], 3] = True
        if self.trail is not None:
            s[self.trail[0], self.trail[1], 4] = True
        s[0, : self.ammo, 5] = True
        return s
