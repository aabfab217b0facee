"""The PostgreSQL posting store behind `detection.SentenceIndex`: table layout and partitions
(`partition`), COPY loading (`copy`, `rows`), lookups and heavy features (`lookup`), the optional
C aggregate (`extension`), and the index itself (`store`)."""
