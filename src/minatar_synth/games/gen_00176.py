"""Gen 00176: move a drone along the bottom row to collect shells while dodging homing meteors.

Rules
- The drone is one cell on the bottom row (row 9). Actions 1 (left) and 3 (right) move it one column, wrapping
  round to the other side. Other actions leave it in place.
- Shells appear in row 0 at a random column (chance 0.20 each step, if that cell is empty). They move one row
  down every step; they are gone when they leave the grid.
- Meteors appear in row 0 at a random column (chance 0.20 each step, if that cell is empty). They move one row
  down every second step, each time also stepping one column toward the drone with chance 0.5; they are gone
  when they leave the grid.
- When the drone and an object share a cell (checked after the drone moves and again after the objects move),
  the object is removed: a shell gives +1; a meteor costs 1 point (-1 reward).
- The episode ends after `max_steps` (300) steps.
- Each step: the drone moves, the objects move, new ones appear.

Channels of state()
- 0 player: the drone.
- 1 danger: the meteors.
- 2 reward: the shells.
- 4 trail: the cells objects occupied before they moved on this step.
Channels 3 (projectile), 5 (gauge) are unused.

Actions
- 0 no-op, 1 left, 3 right; 2, 4 and 5 do nothing.

Reward
- +1 for each shell collected; -1 for each meteor touched.
"""

import numpy as np

GRID = 10
BOTTOM = GRID - 1
SHELL_CHANCE = 0.2  # chance each step that a new shell appears
SHELL_PERIOD = 1  # steps per move of a shell
METEOR_CHANCE = 0.2  # chance each step that a new meteor appears
METEOR_PERIOD = 2  # steps per move of a meteor
LEFT, RIGHT = 1, 3


class Gen00176Environment:
    score_cap = 65.0
    max_steps = 300

    def __init__(self, sticky_action_prob=0.1):
        self.sticky_action_prob = sticky_action_prob
        self.random = np.random.RandomState(0)
        self.reset()

    def seed(self, seed):
        self.random = np.random.RandomState(seed)

    def reset(self):
        self.player = [BOTTOM, GRID // 2]  # [row, col]
        self.shells = []  # each is [row, col, countdown]
        self.meteors = []  # each is [row, col, countdown]
        self.trail = []  # (row, col) cells left by objects that moved on the last step
        self.steps = 0
        self.last_action = 0
        self.terminal = False

    def act(self, action):
        if self.random.rand() < self.sticky_action_prob:
            action = self.last_action
        self.last_action = action
        reward = 0.0
        if self.terminal:
            return reward, True

        self.move_player(action)
        reward += self.touch()

        # Move the objects, then resolve what they reached.
        self.trail = []
        self.shells = [shell for shell in self.shells if self.move_shell(shell)]
        self.meteors = [meteor for meteor in self.meteors if self.move_meteor(meteor)]
        reward += self.touch()
        self.spawn()

        self.steps += 1
        self.terminal = self.steps >= self.max_steps
        return reward, self.terminal

    def move_player(self, action):
        if action == LEFT:
            self.player[1] = (self.player[1] - 1) % GRID
        elif action == RIGHT:
            self.player[1] = (self.player[1] + 1) % GRID

    def move_shell(self, shell):
        """Every SHELL_PERIOD steps move the shell; False once it has left the grid."""
        shell[-1] -= 1
        if shell[-1] > 0:
            return True
        shell[-1] = SHELL_PERIOD
        self.trail.append((shell[0], shell[1]))
        shell[0] += 1
        return shell[0] <= BOTTOM

    def move_meteor(self, meteor):
        """Every METEOR_PERIOD steps move the meteor; False once it has left the grid."""
        meteor[-1] -= 1
        if meteor[-1] > 0:
            return True
        meteor[-1] = METEOR_PERIOD
        self.trail.append((meteor[0], meteor[1]))
        if self.random.rand() < 0.5:
            meteor[1] += int(np.sign(self.player[1] - meteor[1]))  # one step toward the drone
        meteor[0] += 1
        return meteor[0] <= BOTTOM

    def touch(self):
        """Remove the objects on the drone's cell and resolve them; the reward they give."""
        reward = 0.0
        kept = [shell for shell in self.shells if shell[:2] != self.player]
        reward += len(self.shells) - len(kept)
        self.shells = kept
        kept = [meteor for meteor in self.meteors if meteor[:2] != self.player]
        hits = len(self.meteors) - len(kept)
        self.meteors = kept
        reward -= hits
        return reward

    def spawn(self):
        """Maybe add new objects, each on an empty cell."""
        if self.random.rand() < SHELL_CHANCE:
            cell = [0, self.random.randint(GRID)]
            if self.is_empty(cell):
                self.shells.append(cell + [SHELL_PERIOD])
        if self.random.rand() < METEOR_CHANCE:
            cell = [0, self.random.randint(GRID)]
            if self.is_empty(cell):
                self.meteors.append(cell + [METEOR_PERIOD])

    def is_empty(self, cell):
        objects = self.shells + self.meteors
        return cell != self.player and all(obj[:2] != cell for obj in objects)

    def state(self):
        obs = np.zeros((GRID, GRID, 6), dtype=bool)
        obs[self.player[0], self.player[1], 0] = True
        for meteor in self.meteors:
            obs[meteor[0], meteor[1], 1] = True
        for shell in self.shells:
            obs[shell[0], shell[1], 2] = True
        for row, col in self.trail:
            obs[row, col, 4] = True
        return obs
