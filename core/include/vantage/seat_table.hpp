// SeatTable and Seating: a bounded number of seats, where a fresh occupant inherits nothing.
//
// A game server has a fixed number of player slots, and per-seat state lives in arrays
// indexed by seat (input schedules, scores, delta baselines). The classic bug is a joiner who
// takes a seat someone just left and inherits their accumulated state: a half-full input
// queue, an acknowledged baseline for a world they never saw. Two guarantees prevent it:
//   - seat() says whether the seating is Fresh (reset everything for this seat) or Existing
//     (the same key again), and the table's own per-seat `SeatState` is value-initialised on
//     every fresh seating, so state kept here cannot leak between occupants at all;
//   - every seating is named by a SeatToken {index, generation}. Vacating bumps the
//     generation, so a token held by a message, a timer or a pending shot for the previous
//     occupant no longer resolves (occupant() and state() return null) instead of reaching
//     the newcomer.
// Lifetime counters (fresh seatings, rejoins, turn-aways, vacates) belong to the table and
// survive vacating. A joiner takes the lowest open seat, so seat order is reproducible.
//
// Key lookups are hashed (std::hash<Key>) into an open-addressed table of seat indices sized
// once at construction (linear probing, at most half full, deletion by backward shift), and
// the lowest open seat is found in a bitmask of free seats: seating and vacating never
// allocate after construction (beyond what copying a Key allocates). Iteration
// (for_each_occupant) is in seat order, never hash order.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <type_traits>
#include <vector>

#include "vantage/assert.hpp"

namespace vantage {

struct SeatToken {
    std::uint32_t index = 0;
    std::uint32_t generation = 0;
    constexpr bool operator==(const SeatToken&) const = default;
};

struct Seating {
    enum class Kind {
        Fresh,     // a new occupant: reset every piece of state kept for this seat
        Existing,  // this key already held the seat: nothing to reset
        Full,      // no seat free: turned away
    };
    Kind kind = Kind::Full;
    SeatToken token{};  // meaningless when Full

    bool is_fresh() const { return kind == Kind::Fresh; }
    bool seated() const { return kind != Kind::Full; }
    std::uint32_t index() const { return token.index; }
};

// Names for logs, readouts and test failures (core/docs/conventions.md).
constexpr const char* to_string(Seating::Kind kind) {
    switch (kind) {
        case Seating::Kind::Fresh:
            return "fresh";
        case Seating::Kind::Existing:
            return "existing";
        case Seating::Kind::Full:
            return "full";
    }
    return "unknown seating kind";
}

// The default per-seat payload: nothing.
struct NoSeatState {};

// Lifetime counters; they survive unseat() and clear().
struct SeatTableCounters {
    std::uint64_t fresh_seatings = 0;
    std::uint64_t rejoins = 0;
    std::uint64_t turned_away = 0;
    std::uint64_t vacated = 0;
};

template <class Key, class SeatState = NoSeatState>
class SeatTable {
public:
    explicit SeatTable(std::uint32_t capacity) : seats_(capacity), free_((capacity + 63) / 64, ~std::uint64_t{0}) {
        VANTAGE_ASSERT(capacity > 0, "SeatTable: capacity must be at least 1");
        if (capacity % 64 != 0) free_.back() = (std::uint64_t{1} << (capacity % 64)) - 1;
        shift_ = 64;
        while ((std::size_t{1} << (64 - shift_)) < 2 * std::size_t{capacity}) --shift_;
        slots_.assign(std::size_t{1} << (64 - shift_), kEmpty);
    }

    Seating seat(const Key& key) {
        const std::size_t at = find_slot(key);
        if (slots_[at] != kEmpty) {
            ++counters_.rejoins;
            return {Seating::Kind::Existing, token_at(slots_[at])};
        }
        // The lowest free seat: one bit per seat, so a table of 256 is four words to look at.
        for (std::size_t w = 0; w < free_.size(); ++w) {
            if (free_[w] == 0) continue;
            const auto i = static_cast<std::uint32_t>(w * 64 + static_cast<std::size_t>(std::countr_zero(free_[w])));
            free_[w] &= free_[w] - 1;
            Seat& s = seats_[i];
            s.occupied = true;
            s.key = key;
            s.state = SeatState{};
            slots_[at] = i;
            ++occupied_;
            ++counters_.fresh_seatings;
            return {Seating::Kind::Fresh, token_at(i)};
        }
        ++counters_.turned_away;
        return {Seating::Kind::Full, {}};
    }

    // Vacates the key's seat. Idempotent: returns whether the key was seated.
    bool unseat(const Key& key) {
        const std::size_t at = find_slot(key);
        if (slots_[at] == kEmpty) return false;
        vacate(slots_[at]);
        erase_slot(at);
        --occupied_;
        return true;
    }

    // Vacates every seat; the counters survive.
    void clear() {
        for (std::uint32_t i = 0; i < seats_.size(); ++i) {
            if (seats_[i].occupied) vacate(i);
        }
        std::fill(slots_.begin(), slots_.end(), kEmpty);
        occupied_ = 0;
    }

    std::optional<SeatToken> token_of(const Key& key) const {
        const std::size_t at = find_slot(key);
        if (slots_[at] == kEmpty) return std::nullopt;
        return token_at(slots_[at]);
    }
    // True while `token` names the seating it was issued for.
    bool is_current(SeatToken token) const {
        return token.index < seats_.size() && seats_[token.index].occupied &&
               seats_[token.index].generation == token.generation;
    }
    // The occupant a token was issued for, or null if it has left since.
    const Key* occupant(SeatToken token) const { return is_current(token) ? &seats_[token.index].key : nullptr; }
    // The seat's state for the occupant a token was issued for, or null if it has left since.
    SeatState* state(SeatToken token) { return is_current(token) ? &seats_[token.index].state : nullptr; }
    const SeatState* state(SeatToken token) const { return is_current(token) ? &seats_[token.index].state : nullptr; }

    // Calls fn(const Key&, SeatToken) for every occupant, in seat order.
    template <class Fn>
    void for_each_occupant(Fn&& fn) const {
        for (std::uint32_t i = 0; i < seats_.size(); ++i) {
            if (seats_[i].occupied) fn(static_cast<const Key&>(seats_[i].key), token_at(i));
        }
    }

    std::uint32_t capacity() const { return static_cast<std::uint32_t>(seats_.size()); }
    std::uint32_t occupied_count() const { return occupied_; }
    bool is_full() const { return occupied_ == seats_.size(); }

    // Lifetime counters; they survive unseat() and clear().
    const SeatTableCounters& counters() const { return counters_; }

private:
    struct Seat {
        Key key{};
        SeatState state{};
        std::uint32_t generation = 0;
        bool occupied = false;
    };

    static constexpr std::uint32_t kEmpty = 0xffffffffu;

    SeatToken token_at(std::uint32_t i) const { return {i, seats_[i].generation}; }
    // Fibonacci hashing: the top bits of the product, so sequential keys spread. Integer keys
    // are used as they are (libc++'s std::hash of a 64-bit integer on a 32-bit target, wasm's,
    // is a MurmurHash2 that cost more than the rest of a seating).
    std::size_t home(const Key& key) const {
        std::uint64_t v = 0;
        if constexpr (std::is_integral_v<Key> || std::is_enum_v<Key>) {
            v = static_cast<std::uint64_t>(key);
        } else {
            v = static_cast<std::uint64_t>(std::hash<Key>{}(key));
        }
        return static_cast<std::size_t>((v * 0x9E3779B97F4A7C15ull) >> shift_);
    }
    // The slot holding `key`'s seat, or the empty slot where it would go (the table is at most
    // half full, so there always is one).
    std::size_t find_slot(const Key& key) const {
        const std::size_t mask = slots_.size() - 1;
        std::size_t at = home(key);
        while (slots_[at] != kEmpty && !(seats_[slots_[at]].key == key)) at = (at + 1) & mask;
        return at;
    }
    // Empties slot `at` and moves later members of its probe run back so every key stays
    // reachable from its home without tombstones. Reads only the other members' keys, so the
    // erased seat may already be vacated.
    void erase_slot(std::size_t at) {
        const std::size_t mask = slots_.size() - 1;
        std::size_t hole = at;
        for (std::size_t j = (at + 1) & mask; slots_[j] != kEmpty; j = (j + 1) & mask) {
            const std::size_t h = home(seats_[slots_[j]].key);
            // Move j into the hole unless its home lies cyclically in (hole, j].
            const bool stays = hole <= j ? (hole < h && h <= j) : (hole < h || h <= j);
            if (stays) continue;
            slots_[hole] = slots_[j];
            hole = j;
        }
        slots_[hole] = kEmpty;
    }
    void vacate(std::uint32_t i) {
        Seat& s = seats_[i];
        s.occupied = false;
        free_[i / 64] |= std::uint64_t{1} << (i % 64);
        s.key = Key{};
        s.state = SeatState{};  // release what the occupant held; the next one starts clean anyway
        ++s.generation;
        ++counters_.vacated;
    }

    std::vector<Seat> seats_;
    std::vector<std::uint64_t> free_;   // bit i % 64 of word i / 64: seat i is free
    std::vector<std::uint32_t> slots_;  // open-addressed seat indices by key hash; kEmpty when free
    int shift_ = 64;                    // 64 - log2(slots_.size())
    std::uint32_t occupied_ = 0;
    SeatTableCounters counters_;
};

}  // namespace vantage
