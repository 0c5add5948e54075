"""What a run writes for people and tools, from the store: the dataset and each run's changes
(JSON Lines and CSV), Atom feeds, the report page; every file replaced atomically."""
