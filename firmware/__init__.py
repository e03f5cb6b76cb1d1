"""The device: camera, display, buttons, the main loop, the journal and the tableref CLI."""
