"""River Hop: hop a frog across a busy road and a river of drifting logs to the far bank, again and again.

Rules
- The world has 10 rows and 10 columns that wrap around (leaving on one side comes back on the
  other). Row 9 is the start bank, rows 6-8 are road lanes with cars, row 5 is a safe middle
  bank, rows 1-4 are river lanes with logs, and row 0 is the goal bank.
- Every lane slides its logs or cars one column left or right every few steps: a river lane
  every 1, 2 or 3 steps, a road lane every 2 or 3 (each lane draws its period at random, and
  neighbouring lanes slide opposite ways). A river lane holds two logs of 3-4 cells with at least
  one cell of water after each; a road lane holds two one-cell cars at least 2 cells apart.
- The frog hops one cell up, down, left or right per step. A frog standing on a log rides along
  with it. The screen follows the frog sideways: the frog is always drawn in column 4, and the
  world is shifted (wrapping around) to keep it there.
- The frog is lost if it is on a car, or in the water of a river lane (not on a log), either
  right after its hop or after the lanes slide. A lost frog starts again at the start bank (the
  lanes keep going); that costs no points, only the time to come back.
- Reaching the goal bank (row 0) gives +1; the frog then starts again at the start bank and all
  lanes get new random cars, logs, directions and periods.
- A frog that starts again has no previous action (a sticky action repeats a no-op).
- The episode ends after MAX_STEPS steps.

Channels (state()[row, col, channel])
- 0 player: the frog (always column 4).
- 1 danger: cars in the road lanes and open water in the river lanes (river cells without a log).
- 2 reward: the goal bank, row 0.
- 4 trail: the cell just behind each car and each log (where it came from when it last moved),
  which shows the direction its lane slides.
- 5 gauge: time left, as lit cells in row 9 from column 0 (10 cells at the start, 0 at the end).

Actions: 1 left, 2 up, 3 right, 4 down; 0 and 5 do nothing.
"""
import numpy as np

SIZE = 10
VIEW_COL = 4
GOAL_ROW, START_ROW = 0, 9
RIVER_ROWS = (1, 2, 3, 4)
ROAD_ROWS = (6, 7, 8)
MAX_STEPS = 1000
RIVER_PERIODS = (1, 2, 3)  # a river lane slides every 1, 2 or 3 steps
ROAD_PERIODS = (2, 3)      # a road lane slides every 2 or 3 steps
LOG_LENGTHS = (3, 4)       # a river lane holds LOGS logs, a road lane CARS cars
CAR_LENGTHS = (1,)
LOGS, CARS = 2, 2
LOG_GAP, CAR_GAP = 1, 2    # at least this many free cells after each log or car

NOOP, LEFT, UP, RIGHT, DOWN, FIRE = range(6)
PLAYER, DANGER, REWARD, TRAIL, GAUGE = 0, 1, 2, 4, 5


class RiverHopEnvironment:
    score_cap = 87.0
    max_steps = MAX_STEPS

    def __init__(self, sticky_action_prob=0.1):
        self.sticky_action_prob = sticky_action_prob
        self.random = np.random.RandomState(0)
        self.reset()

    def seed(self, seed):
        self.random = np.random.RandomState(seed)

    def reset(self):
        self.row, self.col = START_ROW, 0  # the frog, in world coordinates
        self.steps = 0
        self.last_action = 0
        self.terminal = False
        self._new_lanes()

    def _pick(self, n):
        return int(self.random.rand() * n)

    def _new_lanes(self):
        # lanes[row] = [direction, period, timer, offset, pattern, danger, trail]: pattern[i] is True
        # for a car or log cell; pattern cell i is in world column (i + offset) % SIZE. danger and
        # trail list the pattern cells drawn in those channels.
        self.lanes = {}
        flip = 1 if self.random.rand() < 0.5 else -1
        for row in RIVER_ROWS + ROAD_ROWS:
            river = row in RIVER_ROWS
            # two logs or two cars, each followed by a gap of at least LOG_GAP or CAR_GAP
            choices, gap = (LOG_LENGTHS, LOG_GAP) if river else (CAR_LENGTHS, CAR_GAP)
            lengths = [choices[self._pick(len(choices))] for _ in range(LOGS if river else CARS)]
            spare = SIZE - sum(lengths) - gap * len(lengths)
            pattern = [False] * SIZE
            used = 0
            for length in lengths:
                for i in range(length):
                    pattern[used + i] = True
                extra = self._pick(spare + 1)
                spare -= extra
                used += length + gap + extra
            direction = flip if row % 2 else -flip  # neighbouring lanes slide opposite ways
            periods = RIVER_PERIODS if river else ROAD_PERIODS
            period = periods[self._pick(len(periods))]
            danger = [i for i in range(SIZE) if pattern[i] != river]
            # the trail sits just behind the tail of each car or log
            trail = [(i - direction) % SIZE for i in range(SIZE)
                     if pattern[i] and not pattern[(i - direction) % SIZE]]
            self.lanes[row] = [direction, period, period, self._pick(SIZE), pattern, danger, trail]

    def _lost(self):
        """Is the frog on a car or in the water?"""
        lane = self.lanes.get(self.row)
        if lane is None:
            return False
        return lane[4][(self.col - lane[3]) % SIZE] != (self.row in RIVER_ROWS)

    def _respawn(self):
        # a new frog on the start bank; it has no previous move for a sticky action to repeat
        self.row = START_ROW
        self.last_action = NOOP

    def act(self, action):
        if self.random.rand() < self.sticky_action_prob:
            action = self.last_action
        self.last_action = action
        if self.terminal:
            return 0.0, True

        reward = 0.0
        if action == LEFT:
            self.col = (self.col - 1) % SIZE
        elif action == RIGHT:
            self.col = (self.col + 1) % SIZE
        elif action == UP:
            self.row -= 1
        elif action == DOWN:
            self.row = min(START_ROW, self.row + 1)

        if self.row == GOAL_ROW:
            reward = 1.0
            self._respawn()
            self._new_lanes()
        else:
            if self._lost():
                self._respawn()
            # the lanes slide; a log carries the frog along
            for row, lane in self.lanes.items():
                lane[2] -= 1
                if lane[2] == 0:
                    lane[2] = lane[1]
                    lane[3] += lane[0]
                    if row == self.row and row in RIVER_ROWS:
                        self.col = (self.col + lane[0]) % SIZE
            if self._lost():
                self._respawn()

        self.steps += 1
        if self.steps >= MAX_STEPS:
            self.terminal = True
        return reward, self.terminal

    def state(self):
        s = np.zeros((SIZE, SIZE, 6), dtype=bool)
        s[self.row, VIEW_COL, PLAYER] = True
        s[GOAL_ROW, :, REWARD] = True
        for row, (_, _, _, offset, _, danger, trail) in self.lanes.items():
            shift = offset + VIEW_COL - self.col  # pattern cell i is drawn at (i + shift) % SIZE
            for i in danger:
                s[row, (i + shift) % SIZE, DANGER] = True
            for i in trail:
                s[row, (i + shift) % SIZE, TRAIL] = True
        left = (SIZE * (MAX_STEPS - self.steps) + MAX_STEPS - 1) // MAX_STEPS  # ceil
        s[START_ROW, :left, GAUGE] = True
        return s
