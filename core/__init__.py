"""Shared infrastructure of the Django apps: the task queue, transient-error retries, the
broker's contents, the application's error base class, the instance's environment file,
upload limits and the client address for login throttling. Imports no app."""
