// Internal: extension types travel as their storage type plus two field
// metadata keys (ARROW:extension:name / ARROW:extension:metadata), in the
// C Data Interface and in IPC schemas alike.
#pragma once

#include "quiver/status.h"
#include "quiver/type.h"

namespace quiver::internal {

// Moves the extension keys out of `metadata` into `field` (whose type is the
// storage type so far), keeping the other pairs as the field's metadata.
// Canonical extension types are checked as they arrive, and tensor
// metadata in another form than the spec's is replaced by the spec form.
Status LiftExtensionKeys(KeyValueMetadata metadata, Field* field);

// The metadata to write for `field`: its own pairs, plus the extension
// keys when its type is an extension type (the tensor types' metadata in
// the spec form, whatever form it was read in).
KeyValueMetadata MetadataWithExtensionKeys(const Field& field);

}  // namespace quiver::internal
