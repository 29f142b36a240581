// Generated test pictures for `lacuna bench inpaint`: the truth is known everywhere, so a hole can
// be cut anywhere and every fill compared with what was there. Deterministic (integer hashes,
// no random engine, no files): the same pixels on every machine and every run.
#pragma once

#include <lacuna/core/image.hpp>

namespace lacuna::cli {

/// A smooth sky (blue at the top, paler at the horizon, dithered to ±½ level) above a band of
/// foliage: dark green, multi-octave value noise, its top an irregular line of tree crowns
/// around y = 0.55·h.
ImageRgba8 generate_sky_over_tree_line(int width, int height);

/// Plaster in two tones (light upper right, darker lower left) split by a 45° edge through the
/// centre (y − h/2 = x − w/2), crossed by a 2-px dark cable at a shallower slope, through
/// (w/2 − 140, h/2 + 60) with slope 0.3: at 1920×1080 the two meet at (1106, 686).
ImageRgba8 generate_wall_with_cable(int width, int height);

/// A façade: plaster with a regular grid of framed dark windows (period 120 × 160 px) and a
/// light ledge with a shadow under every row of windows.
ImageRgba8 generate_facade_grid(int width, int height);

}  // namespace lacuna::cli
