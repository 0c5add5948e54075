"""A run: its id, its folder and their retention, its summary and exit status, its lock, and
what it publishes when it ends."""
