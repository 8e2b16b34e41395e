# dicewatch table panel firmware (MicroPython, Raspberry Pi Pico / Pico W).
