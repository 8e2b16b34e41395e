"""The device program: CLI, config, sessions, the table loop and the hardware backends."""
