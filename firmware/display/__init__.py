"""128x64 displays behind one interface; `open_display(spec)` picks the backend.

Specs (also from $TABLEREF_DISPLAY):
  ssd1306[:ADDR]   luma.oled SSD1306 over I2C (default address 0x3C, port 1)
  sh1106[:ADDR]    luma.oled SH1106 over I2C
  png:DIR          luma.core dummy device; every frame written as DIR/NNNNNN.png
  terminal         luma.core dummy device drawn in the terminal with block characters
  null             keeps the last frame only (tests)
"""
from firmware.display.base import HEIGHT, WIDTH, Display

__all__ = ["Display", "WIDTH", "HEIGHT"]
