"""Gen 00156: move a robot around the grid to collect shells while dodging zigzagging bombs.

Rules
- The robot is one cell that starts in the middle of the grid and stays in rows 1 to 9 (objects appear in row
  0). Actions 1 (left) and 3 (right) move it one column, 2 (up) and 4 (down) one row, stopping at row 1 and
  row 9 and at the side edges. Other actions leave it in place.
- Shells appear in row 0 at a random column (chance 0.20 each step, if that cell is empty). They move one row
  down and one column sideways every second step (each picks its sideways direction when it appears), bouncing
  off the side walls; they are gone when they leave the grid.
- Bombs appear in row 0 at a random column (chance 0.15 each step, if that cell is empty). They move one row
  down and one column sideways every second step (each picks its sideways direction when it appears), bouncing
  off the side walls; they are gone when they leave the grid.
- When the robot and an object share a cell (checked after the robot moves and again after the objects move),
  the object is removed: a shell gives +1; a bomb costs one of the robot's 2 lives.
- The episode ends when the last life is lost or after `max_steps` (200) steps.
- Each step: the robot moves, the objects move, new ones appear.

Channels of state()
- 0 player: the robot.
- 1 danger: the bombs.
- 2 reward: the shells.
- 4 trail: the cells objects occupied before they moved on this step.
- 5 gauge: the lives left, one lit cell each in row 9 from column 0.
Channel 3 (projectile) is unused.

Actions
- 0 no-op, 1 left, 2 up, 3 right, 4 down; 5 does nothing.

Reward
- +1 for each shell collected.
"""

import numpy as np

GRID = 10
BOTTOM = GRID - 1
TOP = 1  # the highest row the player may enter: objects appear in row 0
START_LIVES = 2
SHELL_CHANCE = 0.2  # chance each step that a new shell appears
SHELL_PERIOD = 2  # steps per move of a shell
BOMB_CHANCE = 0.15  # chance each step that a new bomb appears
BOMB_PERIOD = 2  # steps per move of a bomb
LEFT, UP, RIGHT, DOWN = 1, 2, 3, 4


class Gen00156Environment:
    score_cap = 41.0
    max_steps = 200

    def __init__(self, sticky_action_prob=0.1):
        self.sticky_action_prob = sticky_action_prob
        self.random = np.random.RandomState(0)
        self.reset()

    def seed(self, seed):
        self.random = np.random.RandomState(seed)

    def reset(self):
        self.player = [GRID // 2, GRID // 2]  # [row, col]
        self.shells = []  # each is [row, col, side, countdown]
        self.bombs = []  # each is [row, col, side, countdown]
        self.trail = []  # (row, col) cells left by objects that moved on the last step
        self.lives = START_LIVES
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
        self.bombs = [bomb for bomb in self.bombs if self.move_bomb(bomb)]
        reward += self.touch()
        self.spawn()

        self.steps += 1
        self.terminal = self.lives <= 0 or self.steps >= self.max_steps
        return reward, self.terminal

    def move_player(self, action):
        if action == LEFT:
            self.player[1] = max(0, self.player[1] - 1)
        elif action == UP:
            self.player[0] = max(TOP, self.player[0] - 1)
        elif action == RIGHT:
            self.player[1] = min(BOTTOM, self.player[1] + 1)
        elif action == DOWN:
            self.player[0] = min(BOTTOM, self.player[0] + 1)

    def move_shell(self, shell):
        """Every SHELL_PERIOD steps move the shell; False once it has left the grid."""
        shell[-1] -= 1
        if shell[-1] > 0:
            return True
        shell[-1] = SHELL_PERIOD
        self.trail.append((shell[0], shell[1]))
        if not 0 <= shell[1] + shell[2] < GRID:
            shell[2] = -shell[2]  # bounce off the wall
        shell[1] += shell[2]
        shell[0] += 1
        return shell[0] <= BOTTOM

    def move_bomb(self, bomb):
        """Every BOMB_PERIOD steps move the bomb; False once it has left the grid."""
        bomb[-1] -= 1
        if bomb[-1] > 0:
            return True
        bomb[-1] = BOMB_PERIOD
        self.trail.append((bomb[0], bomb[1]))
        if not 0 <= bomb[1] + bomb[2] < GRID:
            bomb[2] = -bomb[2]  # bounce off the wall
        bomb[1] += bomb[2]
        bomb[0] += 1
        return bomb[0] <= BOTTOM

    def touch(self):
        """Remove the objects on the robot's cell and resolve them; the reward they give."""
        reward = 0.0
        kept = [shell for shell in self.shells if shell[:2] != self.player]
        reward += len(self.shells) - len(kept)
        self.shells = kept
        kept = [bomb for bomb in self.bombs if bomb[:2] != self.player]
        hits = len(self.bombs) - len(kept)
        self.bombs = kept
        self.lives -= hits
        return reward

    def spawn(self):
        """Maybe add new objects, each on an empty cell."""
        if self.random.rand() < SHELL_CHANCE:
            cell = [0, self.random.randint(GRID)]
            side = 1 if self.random.rand() < 0.5 else -1
            if self.is_empty(cell):
                self.shells.append(cell + [side, SHELL_PERIOD])
        if self.random.rand() < BOMB_CHANCE:
            cell = [0, self.random.randint(GRID)]
            side = 1 if self.random.rand() < 0.5 else -1
            if self.is_empty(cell):
                self.bombs.append(cell + [side, BOMB_PERIOD])

    def is_empty(self, cell):
        objects = self.shells + self.bombs
        return cell != self.player and all(obj[:2] != cell for obj in objects)

    def state(self):
        obs = np.zeros((GRID, GRID, 6), dtype=bool)
        obs[self.player[0], self.player[1], 0] = True
        for bomb in self.bombs:
            obs[bomb[0], bomb[1], 1] = True
        for shell in self.shells:
            obs[shell[0], shell[1], 2] = True
        for row, col in self.trail:
            obs[row, col, 4] = True
        obs[BOTTOM, : max(self.lives, 0), 5] = True
        return obs
