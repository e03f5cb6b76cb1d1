"""Game adapters the device loop drives (GameSession in base.py, one module per game)."""
