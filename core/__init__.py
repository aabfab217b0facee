"""Shared infrastructure of the Django apps: the task queue and its outbox, leases of running
work, transient-error retries, the broker's contents, memory settings and the application's
error base class. Imports no app."""
