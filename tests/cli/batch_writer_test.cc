// tools/batch_writer: which output names the tool refuses.
#include "batch_writer.h"

#include <gtest/gtest.h>

namespace quiver::tools {
namespace {

TEST(BatchWriter, ForeignExtensionsNameTheirFormat) {
  EXPECT_EQ(ForeignFormatOf("out.csv"), "CSV");
  EXPECT_EQ(ForeignFormatOf("dir/OUT.NPY"), "NumPy");
  EXPECT_EQ(ForeignFormatOf("a.b/model.safetensors"), "safetensors");
  EXPECT_EQ(ForeignFormatOf("x.h5"), "HDF5");
  for (const char* fine : {"out.arrow", "out.arrows", "out.feather", "out.ipc", "out.stream", "out",
                           "out.bin", "dir.npy/out", ".hidden", "out.", "out.parquet", "x.PQ"}) {
    EXPECT_EQ(ForeignFormatOf(fine), "") << fine;
  }
}

}  // namespace
}  // namespace quiver::tools
