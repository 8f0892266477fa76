// SlotKey: a slot index plus the generation of its current occupant.
//
// Entities live in reusable slots. A bare index names a slot, not an entity: once a slot is
// freed and taken again, a message naming the index reaches the new occupant. Loss recovery
// widens the window between naming an entity and reading the name (a retraction is
// re-derived frames later), so every key on the delta stream carries the generation too,
// and a reference to a dead occupant misses instead of hitting its replacement.
//
// Packing: encode() = (index << 16) | generation, a u64 that sorts exactly like (index,
// generation), which is what SetDigest hashes and DeltaBaseline diffs. Indices use 32 bits
// and so the packed key fits in 48; decode() refuses anything wider. The generation is 16
// bits and wraps after 65,536 reuses of one slot (SlotAllocator documents the ceiling).
#pragma once

#include <compare>
#include <cstdint>
#include <optional>

namespace vantage {

struct SlotKey {
    std::uint32_t index = 0;
    std::uint16_t generation = 0;

    constexpr std::uint64_t encode() const { return (static_cast<std::uint64_t>(index) << 16) | generation; }
    // nullopt when bits above 48 are set: no SlotKey encodes to that.
    static constexpr std::optional<SlotKey> decode(std::uint64_t packed) {
        if ((packed >> 48) != 0) return std::nullopt;
        return SlotKey{static_cast<std::uint32_t>(packed >> 16), static_cast<std::uint16_t>(packed & 0xFFFFu)};
    }
    // The key with its generation dropped: what an index-only scheme would send. Two
    // occupants of one slot become indistinguishable; kept to demonstrate exactly that.
    constexpr SlotKey ungenerational() const { return SlotKey{index, 0}; }
    constexpr bool same_slot(SlotKey other) const { return index == other.index; }
    // Same slot and same occupant.
    constexpr bool same_occupant(SlotKey other) const { return *this == other; }

    // Orders by slot, then occupant: the same order as encode().
    constexpr auto operator<=>(const SlotKey&) const = default;
};

// Largest packed key (index and generation both at their maximum).
inline constexpr std::uint64_t kMaxPackedSlotKey = (std::uint64_t{1} << 48) - 1;

}  // namespace vantage
