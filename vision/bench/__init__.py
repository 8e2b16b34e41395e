"""Benchmarks that print figures (accuracy, speed) on real and synthetic photos.

Run them all with ``python -m vision.bench``, or one with ``python -m vision.bench NAME [ARGS]``
(= ``python -m vision.bench.NAME [ARGS]``). Each benchmark is a module here with ``main(argv)``.
"""
