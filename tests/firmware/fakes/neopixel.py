# A small stand-in for MicroPython's ``neopixel`` module: keeps every frame written.


class NeoPixel:
    def __init__(self, pin, n, bpp=3, timing=1):
        self.pin = pin
        self.n = n
        self.buffer = [(0, 0, 0)] * n
        self.frames = []

    def __setitem__(self, index, colour):
        self.buffer[index] = tuple(colour)

    def __getitem__(self, index):
        return self.buffer[index]

    def __len__(self):
        return self.n

    def fill(self, colour):
        self.buffer = [tuple(colour)] * self.n

    def write(self):
        self.frames.append(list(self.buffer))
