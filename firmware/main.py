# Runs at power-on: the dicewatch table panel. Edit the options for your build:
#   pixels    NeoPixels on the ring or strip
#   screen    False without the 2.13" e-ink
#   knob      False without the rotary encoder (long-press Next then opens the menu)
#   rotation  270 if the e-ink picture comes out upside down
# Ctrl-C from mpremote stops it (the host never sends that byte).
from dwpanel import runner

runner.main(pixels=12, screen=True, knob=True, rotation=90)
