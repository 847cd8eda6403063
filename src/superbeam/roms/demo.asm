; demo.asm - a ship you move with the keys; the toolchain's smallest game.
;
; Keys (hex keypad): 2 up, 8 down, 4 left, 6 right. The ship moves one pixel
; per frame and its position wraps at the screen edges (pixels past an edge
; are clipped). The main loop waits on the delay timer, so one pass of the
; loop is one 60 Hz frame (see docs/chip8.md, "Frame model").
;
; Registers: VA, VB the ship's x, y; V1, V2 the new x, y; V0 scratch.

KEY_UP     EQU 2
KEY_DOWN   EQU 8
KEY_LEFT   EQU 4
KEY_RIGHT  EQU 6
START_X    EQU 28
START_Y    EQU 13
SHIP_H     EQU ship_end - ship      ; rows in the ship sprite

start:  CLS
        LD VA, START_X
        LD VB, START_Y
        LD I, ship
        DRW VA, VB, SHIP_H

loop:   CALL wait_frame
        LD V1, VA
        LD V2, VB
        LD V0, KEY_LEFT
        SKNP V0
        ADD V1, -1
        LD V0, KEY_RIGHT
        SKNP V0
        ADD V1, 1
        LD V0, KEY_UP
        SKNP V0
        ADD V2, -1
        LD V0, KEY_DOWN
        SKNP V0
        ADD V2, 1
        LD V0, 63
        AND V1, V0                  ; x wraps to 0..63
        LD V0, 31
        AND V2, V0                  ; y wraps to 0..31
        DRW VA, VB, SHIP_H          ; XOR erases the ship at the old place
        LD VA, V1
        LD VB, V2
        DRW VA, VB, SHIP_H          ; and draws it at the new one
        JP loop

; Wait for the next 60 Hz tick: set the delay timer to 1 and poll it.
wait_frame:
        LD V0, 1
        LD DT, V0
wait:   LD V0, DT
        SE V0, 0
        JP wait
        RET

ship:   DB 0b00011000
        DB 0b00111100
        DB 0b01111110
        DB 0b11111111
        DB 0b00100100
        DB 0b01000010
ship_end:
