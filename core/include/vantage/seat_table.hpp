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
// Key lookups are hashed (std::hash<Key>); seat scans are O(capacity), meant for up to a few
// hundred seats. Iteration (for_each_occupant) is in seat order, never hash order.
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>
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
    explicit SeatTable(std::uint32_t capacity) : seats_(capacity) {
        VANTAGE_ASSERT(capacity > 0, "SeatTable: capacity must be at least 1");
        by_key_.reserve(capacity);
    }

    Seating seat(const Key& key) {
        if (const auto it = by_key_.find(key); it != by_key_.end()) {
            ++counters_.rejoins;
            return {Seating::Kind::Existing, token_at(it->second)};
        }
        for (std::uint32_t i = 0; i < seats_.size(); ++i) {
            Seat& s = seats_[i];
            if (s.occupied) continue;
            s.occupied = true;
            s.key = key;
            s.state = SeatState{};
            by_key_.emplace(key, i);
            ++counters_.fresh_seatings;
            return {Seating::Kind::Fresh, token_at(i)};
        }
        ++counters_.turned_away;
        return {Seating::Kind::Full, {}};
    }

    // Vacates the key's seat. Idempotent: returns whether the key was seated.
    bool unseat(const Key& key) {
        const auto it = by_key_.find(key);
        if (it == by_key_.end()) return false;
        vacate(it->second);
        by_key_.erase(it);
        return true;
    }

    // Vacates every seat; the counters survive.
    void clear() {
        for (std::uint32_t i = 0; i < seats_.size(); ++i) {
            if (seats_[i].occupied) vacate(i);
        }
        by_key_.clear();
    }

    std::optional<SeatToken> token_of(const Key& key) const {
        const auto it = by_key_.find(key);
        if (it == by_key_.end()) return std::nullopt;
        return token_at(it->second);
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
    std::uint32_t occupied_count() const { return static_cast<std::uint32_t>(by_key_.size()); }
    bool is_full() const { return by_key_.size() == seats_.size(); }

    // Lifetime counters; they survive unseat() and clear().
    const SeatTableCounters& counters() const { return counters_; }

private:
    struct Seat {
        Key key{};
        SeatState state{};
        std::uint32_t generation = 0;
        bool occupied = false;
    };

    SeatToken token_at(std::uint32_t i) const { return {i, seats_[i].generation}; }
    void vacate(std::uint32_t i) {
        Seat& s = seats_[i];
        s.occupied = false;
        s.key = Key{};
        s.state = SeatState{};  // release what the occupant held; the next one starts clean anyway
        ++s.generation;
        ++counters_.vacated;
    }

    std::vector<Seat> seats_;
    std::unordered_map<Key, std::uint32_t> by_key_;
    SeatTableCounters counters_;
};

}  // namespace vantage
