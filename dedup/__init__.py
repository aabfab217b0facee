"""Near-duplicate detection of a collection's documents (the product side of detection.neardup)."""
