"""Heat gun: shoot descending invaders, but every shot heats the gun, and an overheated gun jams.

Rules
- Invaders appear on row 0 in random columns and move straight down, one row every 2, 3 or 4 steps
  (each invader keeps its own pace, which is not shown; one that catches up with another waits
  behind it). They appear faster and faster as time goes on. An invader that reaches row 9 ends
  the episode.
- The gun sits on row 9 and moves one column left or right per step.
- Fire launches a shot from the gun's cell; shots rise two rows per step and destroy the first
  invader they meet. Several shots can be in the air at once.
- Every shot adds 3 heat, and the heat cools by 1 every step (so a step with a shot adds 2).
  A shot that brings the heat to 10 or more jams the gun: it cannot fire again until the heat is
  back to 0 (10 steps).
- Each step: the gun moves or fires, then the shots rise, then the invaders move down.

Channels
- 0 player: the gun (row 9).
- 1 danger: invaders.
- 3 projectile: shots.
- 5 gauge: the heat, drawn on row 8 from column 0 to column heat-1; while the gun is jammed the
  gauge is drawn on row 7 instead.

Actions: 1 left, 3 right, 5 fire; all others do nothing.
Reward: +1 for each invader destroyed.
The episode ends when an invader reaches row 9, or after max_steps steps.
"""
import numpy as np

GUN_ROW = 9
SHOT_SPEED = 2  # rows per step
HEAT_PER_SHOT = 3
MAX_HEAT = 10
PACES = (2, 3, 4)  # steps per row moved down; each invader has its own pace
SPAWN_START = 9  # steps between invaders at the start ...
SPAWN_END = 3  # ... and at the end of the ramp
RAMP_STEPS = 800


class HeatGunEnvironment:
    score_cap = 140.0
    max_steps = 1000

    def __init__(self, sticky_action_prob=0.1):
        self.sticky_action_prob = sticky_action_prob
        self.random = np.random.RandomState(0)
        self.reset()

    def seed(self, seed):
        self.random = np.random.RandomState(seed)

    def reset(self):
        self.gun = 4
        self.heat = 0
        self.jammed = False
        self.shots = []  # [row, col]
        self.invaders = []  # [row, col, pace, steps until it moves down]
        self.spawn_timer = 2
        self.steps = 0
        self.last_action = 0

    def act(self, action):
        if self.random.rand() < self.sticky_action_prob:
            action = self.last_action
        self.last_action = action
        reward = 0.0

        # Gun: move or fire; the heat cools.
        if action == 1:
            self.gun = max(0, self.gun - 1)
        elif action == 3:
            self.gun = min(9, self.gun + 1)
        elif action == 5 and not self.jammed:
            self.shots.append([GUN_ROW, self.gun])
            self.heat += HEAT_PER_SHOT
            if self.heat >= MAX_HEAT:
                self.heat = MAX_HEAT
                self.jammed = True
        self.heat = max(0, self.heat - 1)
        if self.heat == 0:
            self.jammed = False

        # Shots rise one row at a time and stop at the first invader.
        if self.shots:
            where = {(inv[0], inv[1]): inv for inv in self.invaders}  # invaders never share a cell
            flying = []
            for shot in self.shots:
                for _ in range(SHOT_SPEED):
                    shot[0] -= 1
                    if shot[0] < 0:
                        break
                    target = where.pop((shot[0], shot[1]), None)
                    if target is not None:
                        self.invaders.remove(target)
                        reward += 1.0
                        break
                else:
                    flying.append(shot)
            self.shots = flying

        # Invaders move down (and may run into a shot); one reaching row 9 ends the episode.
        terminal = False
        for invader in list(self.invaders):
            invader[3] -= 1
            if invader[3] > 0:
                continue
            below = (invader[0] + 1, invader[1])
            if any((other[0], other[1]) == below for other in self.invaders):
                invader[3] = 1  # a slower invader is in the way: try again next step
                continue
            invader[0] += 1
            invader[3] = invader[2]
            if invader[0] >= GUN_ROW:
                terminal = True
            for shot in self.shots:  # it may step onto a shot
                if shot[0] == invader[0] and shot[1] == invader[1]:
                    self.shots.remove(shot)
                    self.invaders.remove(invader)
                    reward += 1.0
                    break

        # New invaders appear on row 0, more often as time goes on.
        self.spawn_timer -= 1
        if self.spawn_timer <= 0:
            taken = [inv[1] for inv in self.invaders if inv[0] == 0]
            free = [c for c in range(10) if c not in taken]
            col = free[self.random.randint(len(free))]
            pace = PACES[self.random.randint(len(PACES))]
            self.invaders.append([0, col, pace, pace])
            ramp = min(1.0, self.steps / RAMP_STEPS)
            interval = SPAWN_START + (SPAWN_END - SPAWN_START) * ramp
            self.spawn_timer = int(interval) + self.random.randint(3) - 1

        self.steps += 1
        return reward, terminal or self.steps >= self.max_steps

    def state(self):
        s = np.zeros((10, 10, 6), dtype=bool)
        s[GUN_ROW, self.gun, 0] = True
        for row, col, _, _ in self.invaders:
            s[row, col, 1] = True
        for row, col in self.shots:
            s[row, col, 3] = True
        s[7 if self.jammed else 8, : self.heat, 5] = True
        return s
