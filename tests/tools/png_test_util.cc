#include "png_test_util.h"

#include <png.h>

#include <cstring>

namespace edgefold::tools {

bool DecodePngWithLibpng(const std::vector<uint8_t>& png, DecodedPng* out, std::string* error) {
  png_image image;
  std::memset(&image, 0, sizeof image);
  image.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_memory(&image, png.data(), png.size())) {
    *error = std::string("libpng: ") + image.message;
    return false;
  }
  image.format = PNG_FORMAT_RGB;
  out->width = static_cast<int>(image.width);
  out->height = static_cast<int>(image.height);
  out->rgb.resize(PNG_IMAGE_SIZE(image));
  if (!png_image_finish_read(&image, nullptr, out->rgb.data(), 0, nullptr)) {
    *error = std::string("libpng: ") + image.message;
    png_image_free(&image);
    return false;
  }
  return true;
}

}  // namespace edgefold::tools
