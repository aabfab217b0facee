"""Bulk import into an archive: the engine (`engine`) and the jobs started from the web (`jobs`)."""
