"""Shared infrastructure of the Django apps: the task queue, transient-error retries, the
broker's contents and the application's error base class. Imports no app."""
