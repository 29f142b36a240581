// Harness: retarget requests as the CLI and the editor make them, on a tiny generated image.
// Input: image size (1..12 a side) and pixels, target width and height (any 16-bit number, so
// 0, negative and beyond twice the original), energy, protect and remove masks of a size near
// the image's (so wrong sizes too) with their pixels, then a seam count and a preview factor.
// ops::retarget must refuse a bad request with lacuna::Error; a valid one is carried out with the
// fast carver and its result must have the asked size. The seam-order functions get the same
// treatment (seams beyond what the image allows, factors that are not powers of two).
#include "fuzz_input.hpp"

#include <lacuna/core/error.hpp>
#include <lacuna/core/mask.hpp>
#include <lacuna/ops/seam_carve.hpp>

namespace {

namespace ops = lacuna::ops;

constexpr int kMaxSide = 12;  // each input stays well under a millisecond of carving

std::optional<lacuna::Mask> mask_from(lacuna::fuzz::Input& in, const int width, const int height) {
    const std::uint8_t how = in.byte();
    if (how % 3 == 0) return std::nullopt;
    // Mostly the image's size; sometimes one pixel off in either direction.
    const int w = how % 7 == 1 ? std::max(1, width + (how / 7) % 3 - 1) : width;
    const int h = how % 11 == 2 ? std::max(1, height + (how / 11) % 3 - 1) : height;
    lacuna::Mask mask(w, h);
    for (int y = 0; y < h; ++y) {
        // One byte of the input per row: its bits, repeated every 8 pixels.
        const std::uint8_t bits = in.byte();
        for (int x = 0; x < w; ++x) mask.row(y)[x] = (bits >> (x % 8)) & 1 ? 255 : 0;
    }
    if (how % 5 == 4) {
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) mask.row(y)[x] = 255;  // covers everything
    }
    return mask;
}

void check_order(const ops::SeamOrder& order, const int width, const int height) {
    if (order.width != width || order.height != height || order.order.width() != width ||
        order.order.height() != height)
        lacuna::fuzz::violated("a seam order of another size than its image");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, const std::size_t size) {
    lacuna::fuzz::Input in(data, size);
    const int width = in.in_range(1, kMaxSide);
    const int height = in.in_range(1, kMaxSide);
    lacuna::ImageRgba8 image(width, height);
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) image.row(y)[x] = {in.byte(), in.byte(), in.byte(), 255};
    ops::RetargetParams p;
    p.width = in.take<std::int16_t>();
    p.height = in.take<std::int16_t>();
    p.energy = static_cast<lacuna::SeamEnergy>(in.byte() % 4);
    const std::optional<lacuna::Mask> protect = mask_from(in, width, height);
    const std::optional<lacuna::Mask> remove = mask_from(in, width, height);
    p.protect = protect ? &*protect : nullptr;
    p.remove = remove ? &*remove : nullptr;
    p.want_overlay = in.byte() & 1;
    const int seams = in.take<std::int16_t>();
    const int factor = in.take<std::int8_t>();
    const auto implementation =
        in.byte() % 2 == 0 ? ops::CarveImplementation::Fast : ops::CarveImplementation::Reference;

    try {
        const ops::RetargetResult r =
            ops::retarget(image.view(), p, ops::CarveImplementation::Fast);
        if (r.image.width() != p.width || r.image.height() != p.height)
            lacuna::fuzz::violated("retarget returned another size than asked");
        if (p.want_overlay && (r.overlay.width() != width || r.overlay.height() != height))
            lacuna::fuzz::violated("the seam overlay is not the original's size");
    } catch (const lacuna::Error&) {
    }

    const ops::CarveInput input{image.view(), p.protect, p.remove, p.energy};
    for (const auto direction : {ops::SeamDirection::Vertical, ops::SeamDirection::Horizontal}) {
        try {
            const ops::SeamOrder order = ops::seam_order(input, direction, seams, implementation);
            check_order(order, width, height);
            const int count = std::min(order.seams, std::abs(seams));
            (void)ops::remove_seams<lacuna::Rgba8>(image.view(), order, count);
            if (direction == ops::SeamDirection::Vertical) {
                (void)ops::insert_seams(image.view(), order, count);
                (void)ops::paint_seams(image.view(), order, count, {255, 0, 0, 255});
            }
        } catch (const lacuna::Error&) {
        }
        try {
            const ops::SeamOrder order =
                ops::seam_order_approximate(input, direction, seams, factor, implementation);
            check_order(order, width, height);
        } catch (const lacuna::Error&) {
        }
        if (remove) {
            try {
                (void)ops::seams_to_clear(*remove, direction);
            } catch (const lacuna::Error&) {
            }
        }
    }
    return 0;
}
