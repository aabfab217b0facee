"""The copy-detection Django app: collections, documents, the PostgreSQL index and reports."""
