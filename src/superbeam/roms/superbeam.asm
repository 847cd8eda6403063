; superbeam.asm - SUPERBEAM, a side-scrolling platformer for the project's CHIP-8 machine.
;
; The world is NCOL columns of 8 px; the screen shows 8 of them, from the camera column VD.
; The level is data in RAM (LEVEL, one byte per column, written by the host before the first
; frame): bits 0-1 terrain (0 gap, 1 ground top row 24, 2 pipe top row 16, 3 tall pipe top
; row 8), bits 2-3 coin (0 none, 1 low rows 19-22, 2 mid rows 11-14, 3 high rows 3-6).
; Walkers live in ETAB: 4 bytes each (alive, column, offset px 0..7, direction 0 left 1 right).
;
; Register roles (read by the feature code, keep them):
;   VA  player x on screen (px)           VB  player y (top row of the 8x6 sprite)
;   VC  vertical speed + 8                VD  camera (leftmost visible column)
;   VE  y the player stands at: that of the highest surface under it (18 ground, 10 pipe,
;       2 tall pipe, 26 over a gap); the player stands exactly when VB == VE.
;   V0..V9 scratch; VF flags.
; The player's world x is 8*VD + VA; it is kept as column + offset so that it fits 8 bits.
;
; Keys: 4 left, 6 right (held), 5 jump (a tap: a jump starts only on the frame the key goes
; down, and only while standing).
;
; One pass of `main` is one 60 Hz frame: wait for the tick, update, draw. The update (below,
; and superbeam/physics.py, which is its exact Python twin) runs in this order:
;  1. jump start        2. horizontal move, camera     3. VE
;  4. vertical move     5. falling death (y >= 20)     6. frame count, walkers step (odd frames)
;  7. walker contact    8. coin                        9. flag
; STATUS becomes 1 (won) or 2 (dead); the program then draws the last frame and halts.

NCOL      EQU 48
FLAG_COL  EQU 45
START_X   EQU 8
GROUND_Y  EQU 18
KEY_LEFT  EQU 4
KEY_JUMP  EQU 5
KEY_RIGHT EQU 6
FALL_PHASE EQU 11            ; jump-table entry where walking off an edge starts
LAST_PHASE EQU 15            ; the table's last entry repeats (falling at 2 px/frame)
DEAD_Y    EQU 20             ; y at which a player sinking into a gap dies
SCROLL_R  EQU 24             ; camera scrolls right when the screen x reaches this
SCROLL_L  EQU 16             ; and left when it drops below this
CAM_MAX   EQU NCOL - 8
WALKER_Y  EQU 18
WON       EQU 1
DEAD      EQU 2

start:  LD VA, START_X
        LD VB, GROUND_Y
        LD VC, 8
        LD VD, 0
        LD VE, GROUND_Y
        CALL draw
main:   CALL wait_frame
        CALL update
        CALL draw
        LD I, STATUS
        LD V0, [I]
        SE V0, 0
        JP halt
        JP main
halt:   JP halt                     ; game over: the machine idles here every frame

wait_frame:                         ; see docs/chip8.md, "Frame model"
        LD V0, 1
        LD DT, V0
wf:     LD V0, DT
        SE V0, 0
        JP wf
        RET

; --------------------------------------------------------------------------- update
update:
        ; 1. jump start: V8 = stood at frame start, V9 = a jump started
        LD V8, 0
        SNE VB, VE
        LD V8, 1
        LD V1, 0                    ; V1 = jump key now
        LD V0, KEY_JUMP
        SKNP V0
        LD V1, 1
        LD I, PREVJ
        LD V0, [I]
        LD V2, V0                   ; V2 = jump key the frame before
        LD V0, V1
        LD [I], V0
        LD V9, 0
        SE V1, 1
        JP no_jump
        SE V2, 0
        JP no_jump
        SE V8, 1
        JP no_jump
        LD V9, 1
        LD V0, 0
        LD I, PHASE
        LD [I], V0
no_jump:
        ; 2. horizontal: V3 = right - left
        LD V3, 0
        LD V0, KEY_RIGHT
        SKNP V0
        ADD V3, 1
        LD V0, KEY_LEFT
        SKNP V0
        ADD V3, -1
        SE V3, 1
        JP try_left
        LD V1, VA                   ; the column of the pixel right of the player
        ADD V1, 8
        SHR V1
        SHR V1
        SHR V1
        ADD V1, VD
        LD V0, V1
        LD V2, NCOL
        SUB V0, V2                  ; VF = 1: past the level's end
        SE VF, 0
        JP moved
        CALL top_of
        LD V2, VB
        ADD V2, 5
        SUB V2, V0                  ; VF = 1: its top is at or above y + 5, a wall
        SE VF, 0
        JP moved
        ADD VA, 1
        JP moved
try_left:
        SE V3, 0xFF
        JP moved
        SNE VA, 0                   ; x = 0 (VA is 0 only while VD is 0)
        JP moved
        LD V1, VA                   ; the column of the pixel left of the player
        ADD V1, -1
        SHR V1
        SHR V1
        SHR V1
        ADD V1, VD
        CALL top_of
        LD V2, VB
        ADD V2, 5
        SUB V2, V0
        SE VF, 0
        JP moved
        ADD VA, -1
moved:  ; camera
        LD V0, VA
        LD V1, SCROLL_R
        SUB V0, V1
        SE VF, 1
        JP cam_left
        SNE VD, CAM_MAX
        JP cam_done
        ADD VD, 1
        ADD VA, -8
        JP cam_done
cam_left:
        LD V0, VA
        LD V1, SCROLL_L
        SUB V0, V1
        SE VF, 0
        JP cam_done
        SNE VD, 0
        JP cam_done
        ADD VD, -1
        ADD VA, 8
cam_done:
        ; 3. VE = min(stand y of the columns under x and x + 7)
        LD V1, VA
        SHR V1
        SHR V1
        SHR V1
        ADD V1, VD
        CALL stand_of
        LD V4, V0
        LD V1, VA
        ADD V1, 7
        SHR V1
        SHR V1
        SHR V1
        ADD V1, VD
        CALL stand_of
        LD V5, V0
        SUB V5, V4                  ; VF = 1: the second is not smaller
        LD VE, V0
        SE VF, 0
        LD VE, V4
        ; 4. vertical
        SE V9, 0
        JP airborne
        SE VB, VE
        JP not_on_ground
        LD VC, 8                    ; standing still on a surface
        JP vert_done
not_on_ground:
        SE V8, 1
        JP airborne
        LD V0, FALL_PHASE           ; walked off an edge
        LD I, PHASE
        LD [I], V0
airborne:
        LD I, PHASE
        LD V0, [I]
        LD V1, V0
        LD I, JTAB
        ADD I, V1
        LD V0, [I]
        LD VC, V0
        SE V1, LAST_PHASE
        ADD V1, 1
        LD V0, V1
        LD I, PHASE
        LD [I], V0
        LD V2, VC                   ; V2 = dy (a byte: 0xFE is -2)
        ADD V2, -8
        LD V0, VC
        LD V3, 8
        SUB V0, V3                  ; VF = 0: rising
        SE VF, 0
        JP sinking
        ADD VB, V2                  ; rising: no carry means y went below 0
        SE VF, 1
        LD VB, 0
        JP vert_done
sinking:
        ADD VB, V2
        SNE V2, 0
        JP vert_done
        LD V0, VB
        SUB V0, VE                  ; VF = 1: at or below the surface: land on it
        SE VF, 1
        JP vert_done
        LD VB, VE
vert_done:
        ; 5. sunk into a gap
        LD V0, VB
        LD V1, DEAD_Y
        SUB V0, V1
        SE VF, 1
        JP alive
        LD V0, DEAD
        LD I, STATUS
        LD [I], V0
        RET
alive:  ; 6. frame count; walkers step on odd frames
        LD I, FRAME
        LD V0, [I]
        ADD V0, 1
        LD [I], V0
        LD V1, 1
        AND V0, V1
        SE V0, 1
        JP walkers_moved
        LD V6, 0
        CALL move_walker
        LD V6, 4
        CALL move_walker
walkers_moved:
        ; 7. walker contact
        LD V6, 0
        CALL touch_walker
        LD V6, 4
        CALL touch_walker
        LD I, STATUS
        LD V0, [I]
        SE V0, 0
        RET
        ; 8. the coin in the column of the player's centre
        LD V1, VA
        ADD V1, 4
        SHR V1
        SHR V1
        SHR V1
        ADD V1, VD
        LD I, LEVEL
        ADD I, V1
        LD V0, [I]
        LD V5, V0
        SHR V0
        SHR V0
        LD V2, 3
        AND V0, V2
        SNE V0, 0
        JP no_coin
        LD I, COIN_ROW
        ADD I, V0
        LD V0, [I]                  ; V0 = the coin's top row r
        LD V3, V0
        ADD V3, 3
        SUB V3, VB                  ; VF = 1: y <= r + 3
        SE VF, 1
        JP no_coin
        LD V3, VB
        ADD V3, 5
        SUB V3, V0                  ; VF = 1: y + 5 >= r
        SE VF, 1
        JP no_coin
        LD V0, V5
        LD V2, 0xF3
        AND V0, V2
        LD I, LEVEL
        ADD I, V1
        LD [I], V0
        LD I, COINS
        LD V0, [I]
        ADD V0, 1
        LD [I], V0
        LD V0, 3
        LD ST, V0                   ; a short beep
no_coin:
        ; 9. the player's right edge on the flag column wins
        LD V1, VA
        ADD V1, 7
        SHR V1
        SHR V1
        SHR V1
        ADD V1, VD
        LD V2, FLAG_COL
        SUB V1, V2
        SE VF, 1
        RET
        LD V0, WON
        LD I, STATUS
        LD [I], V0
        RET

; V1 = column -> V0 = its top row (32 for a gap). Uses V2.
top_of: LD I, LEVEL
        ADD I, V1
        LD V0, [I]
        LD V2, 3
        AND V0, V2
        LD I, TOPS
        ADD I, V0
        LD V0, [I]
        RET

; V1 = column -> V0 = the player's y when standing on it (26 for a gap). Uses V2.
stand_of:
        LD I, LEVEL
        ADD I, V1
        LD V0, [I]
        LD V2, 3
        AND V0, V2
        LD I, STAND_Y
        ADD I, V0
        LD V0, [I]
        RET

; V6 = 4 * walker: step it 1 px, or turn it where the next column is not ground.
move_walker:
        LD I, ETAB
        ADD I, V6
        LD V3, [I]                  ; V0 alive, V1 column, V2 offset, V3 direction
        SNE V0, 0
        RET
        SE V3, 1
        JP mw_left
        SE V2, 0
        JP mw_right_step
        LD V5, V1                   ; at offset 0 the next step enters column + 1
        ADD V5, 1
        LD V4, V5
        LD V7, NCOL
        SUB V4, V7
        SE VF, 0
        JP mw_turn
        LD I, LEVEL
        ADD I, V5
        LD V0, [I]
        LD V4, 3
        AND V0, V4
        SE V0, 1
        JP mw_turn
mw_right_step:
        ADD V2, 1
        SE V2, 8
        JP mw_store
        LD V2, 0
        ADD V1, 1
        JP mw_store
mw_left:
        SE V2, 0
        JP mw_left_step
        SNE V1, 0
        JP mw_turn
        LD V5, V1                   ; at offset 0 the next step enters column - 1
        ADD V5, -1
        LD I, LEVEL
        ADD I, V5
        LD V0, [I]
        LD V4, 3
        AND V0, V4
        SE V0, 1
        JP mw_turn
        LD V1, V5
        LD V2, 7
        JP mw_store
mw_left_step:
        ADD V2, -1
        JP mw_store
mw_turn:
        LD V4, 1
        XOR V3, V4
mw_store:
        LD V0, 1
        LD I, ETAB
        ADD I, V6
        LD [I], V3
        RET

; V6 = 4 * walker: if it overlaps the player, a falling player (VC > 8) stomps it, otherwise
; the player dies. The overlap test works on screen x: a walker left of the
; camera cannot touch the player, who is never left of screen x 8 while VD > 0.
touch_walker:
        LD I, STATUS
        LD V0, [I]
        SE V0, 0
        RET
        LD I, ETAB
        ADD I, V6
        LD V2, [I]                  ; V0 alive, V1 column, V2 offset
        SNE V0, 0
        RET
        LD V3, VB
        LD V4, 13
        SUB V3, V4                  ; VF = 1: y >= 13, the rows meet
        SE VF, 1
        RET
        LD V3, V1
        SUB V3, VD                  ; V3 = column - camera; VF = 0: left of the camera
        SE VF, 1
        RET
        LD V4, V3
        LD V5, 8
        SUB V4, V5                  ; VF = 1: right of the screen
        SE VF, 0
        RET
        SHL V3
        SHL V3
        SHL V3
        ADD V3, V2                  ; V3 = the walker's screen x
        LD V4, V3
        ADD V4, 7
        SUB V4, VA                  ; VF = 1: walker x + 7 >= player x
        SE VF, 1
        RET
        LD V4, VA
        ADD V4, 7
        SUB V4, V3                  ; VF = 1: player x + 7 >= walker x
        SE VF, 1
        RET
        LD V4, VC
        LD V5, 9
        SUB V4, V5                  ; VF = 1: falling
        SE VF, 1
        JP tw_die
        LD V0, 0                    ; stomped
        LD I, ETAB
        ADD I, V6
        LD [I], V0
        RET
tw_die: LD V0, DEAD
        LD I, STATUS
        LD [I], V0
        RET

; --------------------------------------------------------------------------- draw
draw:   CLS
        LD V6, 0                    ; V6 screen column, V7 its x
        LD V7, 0
dl:     LD V1, VD
        ADD V1, V6
        LD I, LEVEL
        ADD I, V1
        LD V0, [I]
        LD V5, V0                   ; the column's byte
        LD V2, 3
        AND V0, V2
        SNE V0, 0
        JP d_coin
        LD V3, 24
        SE V0, 1
        JP d_pipe
        LD I, SPR_GROUND
        DRW V7, V3, 8
        JP d_coin
d_pipe: LD I, SPR_PIPE
        DRW V7, V3, 8
        LD V3, 16
        SE V0, 2
        JP d_tall
        LD I, SPR_PIPE_TOP
        DRW V7, V3, 8
        JP d_coin
d_tall: DRW V7, V3, 8
        LD V3, 8
        LD I, SPR_PIPE_TOP
        DRW V7, V3, 8
d_coin: LD V0, V5
        SHR V0
        SHR V0
        LD V2, 3
        AND V0, V2
        SNE V0, 0
        JP d_flag
        LD I, COIN_ROW
        ADD I, V0
        LD V0, [I]
        LD V2, V7
        ADD V2, 2
        LD I, SPR_COIN
        DRW V2, V0, 4
d_flag: SE V1, FLAG_COL
        JP d_next
        LD V3, 8
        LD I, SPR_FLAG
        DRW V7, V3, 8
        LD V3, 16
        LD I, SPR_POLE
        DRW V7, V3, 8
d_next: ADD V6, 1
        ADD V7, 8
        SE V6, 8
        JP dl
        LD V6, 0
        CALL draw_walker
        LD V6, 4
        CALL draw_walker
        LD I, SPR_PLAYER
        DRW VA, VB, 6
        RET

; V6 = 4 * walker: draw it if alive and on screen.
draw_walker:
        LD I, ETAB
        ADD I, V6
        LD V2, [I]
        SNE V0, 0
        RET
        LD V3, V1
        SUB V3, VD
        SE VF, 1
        RET
        LD V4, V3
        LD V5, 8
        SUB V4, V5
        SE VF, 0
        RET
        SHL V3
        SHL V3
        SHL V3
        ADD V3, V2
        LD V4, WALKER_Y
        LD I, SPR_WALKER
        DRW V3, V4, 6
        RET

; --------------------------------------------------------------------------- data
JTAB:    DB 6, 6, 6, 7, 7, 7, 7, 8, 8, 8, 8, 9, 9, 9, 9, 10   ; vertical speed + 8 per phase
TOPS:    DB 32, 24, 16, 8          ; top row per terrain
STAND_Y: DB 26, 18, 10, 2          ; the player's y standing on it
COIN_ROW: DB 0, 19, 11, 3          ; a coin's top row per kind

SPR_PLAYER:   DB 0b00111100, 0b01111110, 0b11011011, 0b11111111, 0b01100110, 0b11000011
SPR_WALKER:   DB 0b00111100, 0b01011010, 0b11111111, 0b10111101, 0b00100100, 0b01100110
SPR_GROUND:   DB 0b11111111, 0b10001000, 0b11111111, 0b00100010, 0b11111111, 0b10001000
              DB 0b11111111, 0b00100010
SPR_PIPE_TOP: DB 0b11111111, 0b10000001, 0b11111111, 0b01000010, 0b01000010, 0b01000010
              DB 0b01000010, 0b01000010
SPR_PIPE:     DB 0b01000010, 0b01000010, 0b01000010, 0b01000010, 0b01000010, 0b01000010
              DB 0b01000010, 0b01000010
SPR_COIN:     DB 0b01100000, 0b11110000, 0b11110000, 0b01100000
SPR_FLAG:     DB 0b00011110, 0b00011111, 0b00011110, 0b00010000, 0b00010000, 0b00010000
              DB 0b00010000, 0b00010000
SPR_POLE:     DB 0b00010000, 0b00010000, 0b00010000, 0b00010000, 0b00010000, 0b00010000
              DB 0b00010000, 0b00010000

; --------------------------------------------------------------------------- state
PHASE:   DB LAST_PHASE             ; jump-table index while airborne
PREVJ:   DB 0                      ; the jump key the frame before
FRAME:   DB 0                      ; frames updated, mod 256
STATUS:  DB 0                      ; 0 playing, 1 won, 2 dead
COINS:   DB 0                      ; coins taken
ETAB:    DB 0, 0, 0, 0, 0, 0, 0, 0 ; walkers: alive, column, offset, direction (host writes it)
LEVEL:   DS NCOL                   ; one byte per column (host writes it)
