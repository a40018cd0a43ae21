// Copyright 2026 The custody Authors.

#include "core/autograd/meta.h"

namespace custody::autograd::internal {

ImplRef shallow_view(const TensorImpl& t) {
  return TensorImpl::Create(t.storage(), t.storage_offset(), t.sizes(), t.strides(), t.scalar_type(),
                            t.shape_dynamism(), t.stats());
}

}  // namespace custody::autograd::internal
