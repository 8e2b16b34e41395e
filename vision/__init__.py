"""Everything that turns camera frames into a Roll. numpy + OpenCV; never imports host."""
