"""Shared infrastructure of the Django apps: the task queue and its outbox, leases of running
work, transient-error retries, the broker's contents, memory settings, the application's error
base class, the instance's environment file, upload limits and the client address for login
throttling. Imports no app."""
