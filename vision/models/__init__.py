"""The ONNX models and settings of the pip reader (package data; see PROVENANCE.md)."""
