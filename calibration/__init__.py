"""Lens, table geometry and colour calibration; profiles persisted as TOML."""
