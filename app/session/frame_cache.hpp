// Frames of a clip held within a byte budget (maps, carved frames), keyed by frame index.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <iterator>
#include <map>
#include <utility>

namespace lacuna::session {

/// Puts `value` at `index` (replacing what was there); over `budget` the frames farthest from
/// `index` go first, since the user steps near the frame shown. At least one frame stays.
/// `held` is the bytes the map holds, `bytes(value)` what one value counts.
template <class T, class Bytes>
void store_near(std::map<int, T>& frames, std::size_t& held, const std::size_t budget,
                const int index, T value, const Bytes& bytes) {
    if (const auto old = frames.find(index); old != frames.end()) {
        held -= bytes(old->second);
        frames.erase(old);
    }
    held += bytes(value);
    frames.emplace(index, std::move(value));
    while (held > budget && frames.size() > 1) {
        const auto first = frames.begin();
        const auto last = std::prev(frames.end());
        const auto victim =
            std::abs(first->first - index) >= std::abs(last->first - index) ? first : last;
        held -= bytes(victim->second);
        frames.erase(victim);
    }
}

}  // namespace lacuna::session
