// DeltaMirror<E>: the client half of a delta stream; what the client believes it holds.
//
// It applies every frame that arrives, whatever baseline the frame names: a frame's lists
// are absolute facts ("this occupant is in", "this occupant is out"), so applying one is
// idempotent, and DeltaBaseline only diffs against states this mirror acknowledged, with
// baselines built so that extra applications are harmless. Frames can also arrive out of
// order or twice; each slot remembers the sequence of the newest frame that spoke about it
// (a tombstone when the answer was "out") and an older frame never overrides a newer one. A
// full baseline speaks about every slot at once: older frames are then ignored entirely.
//
// Keys carry generations (SlotKey). A removal or lookup naming a dead occupant of a slot now
// held by a newer one misses and is counted as a stale reference instead of hitting the
// replacement. set_generations(false) keeps the index-only scheme to demonstrate why.
//
// The mirror keeps the AckWindow the server needs (ack_report()) and an incremental
// SetDigest of the keys it holds: settle() compares it with the server's, and an empty
// mirror's digest is how a client asks for a resync (it mismatches any non-empty set).
//
// Storage is per slot index, iterated ascending (no reliance on hash order). Indices below
// kDenseSlots live in a flat array grown to the largest index seen, with a bitmap of the held
// ones: lookups are O(1), a walk costs one word per 64 slots plus the held entries, and a
// tombstone (a slot named as "out" since the last full baseline, which clears them) is a
// field in its slot rather than a node to walk past. Larger indices, which a SlotAllocator
// world never reaches but bytes off the wire may name, go to an ordered map, so a hostile
// index costs one node, not memory. After warm-up (the array has grown to the world's
// slots) applying frames allocates nothing. E is any movable value type: a position,
// render state.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "vantage/ack_window.hpp"
#include "vantage/delta_plan.hpp"
#include "vantage/set_digest.hpp"
#include "vantage/slot_key.hpp"

namespace vantage {

struct MirrorCounters {
    std::uint64_t frames_applied = 0;     // frames begun and not superseded
    std::uint64_t frames_lost = 0;        // sequence gaps seen (a late arrival is not subtracted)
    std::uint64_t frames_superseded = 0;  // arrived after a newer full baseline: ignored
    std::uint64_t duplicates = 0;         // frames that arrived more than once
    std::uint64_t stale_refs = 0;         // references naming a slot's previous occupant
    std::uint64_t invalid_keys = 0;       // packed keys no SlotKey encodes to
    std::uint64_t divergences = 0;        // settle() calls that disagreed
};

struct Agreement {
    bool agreed = true;
    std::uint64_t held = 0;      // this mirror's digest
    std::uint64_t expected = 0;  // the server's
    explicit operator bool() const { return agreed; }
};

// What a mirror holds that the server does not (extra: phantoms) and the reverse (missing).
struct Divergence {
    std::vector<std::uint64_t> extra;
    std::vector<std::uint64_t> missing;
    bool empty() const { return extra.empty() && missing.empty(); }
};

template <class E>
class DeltaMirror {
public:
    DeltaMirror() = default;

    // Starts applying frame seq. Records it for acknowledgement (always), counts gaps, and
    // for a full baseline clears every slot no newer frame spoke about. Returns false when
    // the frame is older than the newest full baseline applied; its inserts and removes are
    // then ignored.
    bool begin(std::uint64_t seq, bool full) {
        if (applied_seq_ && seq > *applied_seq_ + 1) counters_.frames_lost += seq - *applied_seq_ - 1;
        if (!applied_seq_ || seq > *applied_seq_) applied_seq_ = seq;
        if (!acks_.observe(seq) && acks_.contains(seq)) counters_.duplicates += 1;
        if (full_floor_ && seq < *full_floor_) {
            counters_.frames_superseded += 1;
            active_ = false;
            return false;
        }
        active_ = true;
        current_seq_ = seq;
        counters_.frames_applied += 1;
        if (full) {
            // A slot reset to its default is the same as no entry: touched by frame 0, empty.
            for (std::size_t i = 0; i < dense_.size(); ++i) {
                if (dense_[i].touched_seq <= seq) {
                    drop(static_cast<std::uint32_t>(i), dense_[i]);
                    dense_[i] = Slot{};
                }
            }
            for (auto it = sparse_.begin(); it != sparse_.end();) {
                if (it->second.touched_seq <= seq) {
                    drop(it->first, it->second);
                    it = sparse_.erase(it);
                } else {
                    ++it;
                }
            }
            full_floor_ = seq;
        }
        return true;
    }

    // Within the frame begun last: puts value at key's slot, replacing whatever occupies it.
    // False when a newer frame already spoke about the slot (or the frame is superseded).
    bool insert(SlotKey key, E value) {
        if (!active_) return false;
        key = scheme(key);
        Slot& slot = slot_at(key.index);
        if (slot.touched_seq > current_seq_) return false;
        drop(key.index, slot);
        slot.generation = key.generation;
        slot.value = std::move(value);
        slot.touched_seq = current_seq_;
        if (key.index < dense_.size()) held_bits_[key.index / 64] |= std::uint64_t{1} << (key.index % 64);
        digest_.insert(key.encode());
        ++held_;
        return true;
    }

    // Within the frame begun last: removes key. False when it was not held; a slot held by
    // another occupant is left alone and counted as a stale reference. Either way the slot
    // remembers that this frame spoke about it, so a late older frame cannot re-add it.
    bool remove(SlotKey key) {
        if (!active_) return false;
        key = scheme(key);
        Slot& slot = slot_at(key.index);
        if (slot.touched_seq > current_seq_) return false;
        slot.touched_seq = current_seq_;
        if (!slot.value) return false;
        if (slot.generation != key.generation) {
            counters_.stale_refs += 1;
            return false;
        }
        drop(key.index, slot);
        return true;
    }

    // Applies a whole frame: begin, then every removal, then every insertion with
    // value_for(i, key) for the i-th entered key. Returns false when superseded.
    template <class ValueFor>
    bool apply(const DeltaPlan& frame, ValueFor&& value_for) {
        if (!begin(frame.seq, frame.full_baseline)) return false;
        for (std::uint64_t packed : frame.left) {
            if (const std::optional<SlotKey> key = SlotKey::decode(packed)) {
                remove(*key);
            } else {
                counters_.invalid_keys += 1;
            }
        }
        for (std::size_t i = 0; i < frame.entered.size(); ++i) {
            if (const std::optional<SlotKey> key = SlotKey::decode(frame.entered[i])) {
                insert(*key, value_for(i, *key));
            } else {
                counters_.invalid_keys += 1;
            }
        }
        return true;
    }

    bool contains(SlotKey key) const { return get(key) != nullptr; }
    const E* get(SlotKey key) const {
        key = scheme(key);
        const Slot* slot = find(key.index);
        if (!slot || !slot->value || slot->generation != key.generation) return nullptr;
        return &*slot->value;
    }
    // Like get, but a slot held by another occupant counts as a stale reference: this is the
    // path a game's updates take, so the count shows how often names outlive occupants.
    E* get_mut(SlotKey key) {
        key = scheme(key);
        Slot* slot = find(key.index);
        if (!slot || !slot->value) return nullptr;
        if (slot->generation != key.generation) {
            counters_.stale_refs += 1;
            return nullptr;
        }
        return &*slot->value;
    }

    // Compares the held set's digest with the server's; counts a disagreement.
    Agreement settle(std::uint64_t expected) {
        const Agreement a{digest() == expected, digest(), expected};
        if (!a.agreed) counters_.divergences += 1;
        return a;
    }
    // Phantoms and missing keys against the server's ascending packed keys (a debug path
    // that ships the truth; O(n)).
    void divergence_from(std::span<const std::uint64_t> server_keys, Divergence& out) const {
        out.extra.clear();
        out.missing.clear();
        std::size_t j = 0;
        for_each([&](SlotKey key, const E&) {
            const std::uint64_t k = key.encode();
            while (j < server_keys.size() && server_keys[j] < k) out.missing.push_back(server_keys[j++]);
            if (j < server_keys.size() && server_keys[j] == k) {
                ++j;
            } else {
                out.extra.push_back(k);
            }
        });
        while (j < server_keys.size()) out.missing.push_back(server_keys[j++]);
    }

    std::uint64_t digest() const { return digest_.digest(); }
    const AckWindow& acks() const { return acks_; }
    // What to send back: the ack window and the digest. nullopt before any frame arrived.
    std::optional<AckReport> ack_report() const {
        const auto encoded = acks_.encode();
        if (!encoded) return std::nullopt;
        return AckReport{encoded->first, encoded->second, digest()};
    }
    std::optional<std::uint64_t> applied_seq() const { return applied_seq_; }

    // Appends the held keys, packed and ascending.
    void keys(std::vector<std::uint64_t>& out) const {
        for_each([&](SlotKey key, const E&) { out.push_back(key.encode()); });
    }
    // Visits every held key and value in ascending slot order.
    template <class F>
    void for_each(F&& f) const {
        walk(*this, f);
    }
    template <class F>
    void for_each_mut(F&& f) {
        walk(*this, f);
    }
    std::size_t size() const { return held_; }
    bool empty() const { return held_ == 0; }

    // Drops everything held, keeping the acknowledgement state. The next report then
    // carries the empty set's digest while naming frames the server knows it sent, which
    // fails the drift check and brings a full baseline: this is how a client asks for a
    // resync, and why no resync message exists. (A new connection wants a new mirror.)
    void clear() {
        for (Slot& slot : dense_) slot = Slot{};
        std::fill(held_bits_.begin(), held_bits_.end(), std::uint64_t{0});
        sparse_.clear();
        digest_.clear();
        held_ = 0;
    }

    // With generations off, keys are compared by slot index only (the broken scheme, kept
    // to demonstrate it). Changing the scheme clears the mirror: keys stored under one scheme
    // are unreachable under the other.
    void set_generations(bool on) {
        if (on == generational_) return;
        generational_ = on;
        clear();
    }
    bool generational() const { return generational_; }
    const MirrorCounters& counters() const { return counters_; }

    // Slot indices below this are stored in the flat array; a multiple of 64.
    static constexpr std::uint32_t kDenseSlots = std::uint32_t{1} << 16;

private:
    struct Slot {
        std::uint64_t touched_seq = 0;  // newest frame that spoke about this slot
        std::uint16_t generation = 0;
        std::optional<E> value;         // empty: a tombstone (or never held)
    };

    SlotKey scheme(SlotKey key) const { return generational_ ? key : key.ungenerational(); }

    // The slot at index, created (as "never spoken about") if absent.
    Slot& slot_at(std::uint32_t index) {
        if (index >= kDenseSlots) return sparse_[index];
        if (index >= dense_.size()) {
            // Powers of two from 64: few growths, and the bitmap stays whole words.
            const std::size_t size = std::max<std::size_t>(64, std::bit_ceil(std::size_t{index} + 1));
            dense_.resize(size);
            held_bits_.resize(size / 64, 0);
        }
        return dense_[index];
    }
    Slot* find(std::uint32_t index) {
        if (index < dense_.size()) return &dense_[index];
        if (index < kDenseSlots) return nullptr;
        const auto it = sparse_.find(index);
        return it == sparse_.end() ? nullptr : &it->second;
    }
    const Slot* find(std::uint32_t index) const { return const_cast<DeltaMirror*>(this)->find(index); }

    void drop(std::uint32_t index, Slot& slot) {
        if (!slot.value) return;
        digest_.remove(SlotKey{index, slot.generation}.encode());
        slot.value.reset();
        if (index < dense_.size()) held_bits_[index / 64] &= ~(std::uint64_t{1} << (index % 64));
        --held_;
    }

    // Ascending: the dense indices are all below the sparse ones.
    template <class Self, class F>
    static void walk(Self& self, F& f) {
        for (std::size_t w = 0; w < self.held_bits_.size(); ++w) {
            for (std::uint64_t bits = self.held_bits_[w]; bits != 0; bits &= bits - 1) {
                const auto index = static_cast<std::uint32_t>(w * 64 + static_cast<std::size_t>(std::countr_zero(bits)));
                auto& slot = self.dense_[index];
                f(SlotKey{index, slot.generation}, *slot.value);
            }
        }
        for (auto& [index, slot] : self.sparse_) {
            if (slot.value) f(SlotKey{index, slot.generation}, *slot.value);
        }
    }

    std::vector<Slot> dense_;               // indices below kDenseSlots
    std::vector<std::uint64_t> held_bits_;  // bit i set: dense_[i] holds a value
    std::map<std::uint32_t, Slot> sparse_;  // indices from kDenseSlots up
    SetDigest digest_;
    std::size_t held_ = 0;
    AckWindow acks_;
    std::optional<std::uint64_t> applied_seq_;
    std::optional<std::uint64_t> full_floor_;
    std::uint64_t current_seq_ = 0;
    bool active_ = false;
    bool generational_ = true;
    MirrorCounters counters_;
};

}  // namespace vantage
