// An RGB pixel canvas with the few primitives the PNG memory plot needs: filled rectangles,
// dashed horizontal lines and text in a built-in 5×7 bitmap font (upper case, digits, a
// little punctuation; lower case is drawn as upper case).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace edgefold::tools {

class Canvas {
 public:
  Canvas(int width, int height, uint32_t background);

  // Fills [x0, x1) × [y0, y1), clipped to the canvas. Colours are 0xRRGGBB.
  void FillRect(int x0, int y0, int x1, int y1, uint32_t color);
  void StrokeRect(int x0, int y0, int x1, int y1, uint32_t color);
  // Dashes of `dash_px` on / off starting `phase_px` into the pattern (0 = solid line).
  void HLine(int x0, int x1, int y, uint32_t color, int dash_px = 0, int phase_px = 0);
  // Top-left of the first glyph at (x, y); each glyph cell is 6×8 pixels times `scale`.
  void Text(int x, int y, const std::string& text, uint32_t color, int scale = 1);
  static int TextWidth(const std::string& text, int scale = 1) {
    return int(text.size()) * 6 * scale;
  }

  uint32_t At(int x, int y) const;
  int width() const { return width_; }
  int height() const { return height_; }
  const std::vector<uint8_t>& rgb() const { return rgb_; }

 private:
  void Put(int x, int y, uint32_t color);
  int width_, height_;
  std::vector<uint8_t> rgb_;
};

}  // namespace edgefold::tools
