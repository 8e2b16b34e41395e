"""Training the networks of the pip reader (needs the [train] extra: torch, onnx).

Never imported at run time; only split.py and augment.py work without torch."""
