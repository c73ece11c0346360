#include "seragen/env/image_root.h"

namespace seragen::env {

Result<ImageRoot> PrepareImageRoot(const std::string& image_path, const std::string& cache_dir) {
  (void)cache_dir;
  return Status(StatusCode::kUnimplemented, image_path + ": container images are not supported yet");
}

}  // namespace seragen::env
