"""Shared infrastructure: the instance's environment file, upload limits, the broker's
unacknowledged messages, the client address for login throttling."""
