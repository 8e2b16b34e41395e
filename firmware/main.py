# Runs at power-on: the dicewatch table panel. Edit the three options for your build.
# Ctrl-C from mpremote stops it (the host never sends that byte).
from dwpanel import runner

runner.main(pixels=12, screen=True, knob=True)
