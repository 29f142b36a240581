// Internal: the gradient-domain blend of a finished 8-bit PatchMatch fill, on the device.
#pragma once

#include <lacuna/core/device_image.hpp>
#include <lacuna/kernels/blend_kernels.h>
#include <lacuna/ops/inpaint.hpp>
#include <lacuna/ops/patchmatch.hpp>

namespace lacuna::ops::detail {

/// Blends the fill in `pixels` (device memory, row pitch = width) in place: the hole pixels of
/// `hole_box` with a source in `field` get blend_fill's bytes. Enqueued on `stream`; returns
/// once the solve has converged (it reads the running flags back once an iteration), before
/// the colours are written.
void blend_on_device(const kernels::BlendPixels& pixels, const kernels::BlendField& field,
                     Rgba8* color, const SearchRect& hole_box, const BlendOptions& options,
                     DeviceStream stream);

}  // namespace lacuna::ops::detail
