// DeltaMirror<E>: the client half of a delta stream; what the client believes it holds.
//
// It applies every frame that arrives, whatever baseline the frame names: a frame's lists
// are absolute facts about slots ("this occupant is in", "this slot is empty"), so applying
// one is idempotent. Frames can also arrive out of order or twice; each slot remembers the
// sequence of the newest frame that spoke about it (a tombstone when the answer was "empty")
// and an older frame never overrides a newer one. So what the mirror holds is a function of
// which frames arrived, which is what lets DeltaBaseline compute it from acknowledgements.
// Frames belong to epochs: a full baseline starts one, and a later frame names its epoch's
// first frame. A frame of a newer epoch than the mirror's clears every slot no frame of that
// epoch spoke about before it applies, so a lost full baseline costs nothing; frames of an
// older epoch are ignored entirely.

// Keys carry generations (SlotKey). A lookup or remove() naming a dead occupant of a slot now
// held by a newer one misses and is counted as a stale reference instead of hitting the
// replacement (a frame's retraction is the server's newest word on the slot and empties it). set_generations(false)
// keeps the index-only scheme to demonstrate why.
//
// The mirror keeps the AckWindow the server needs (ack_report()) and an incremental
// SetDigest of the keys it holds: settle() compares it with the server's, and an empty
// mirror's digest is how a client asks for a resync (it mismatches any non-empty set).
//
// Storage, two parts. Per slot index: the newest frame that spoke about it (a tombstone is
// just that, with nothing held; a full baseline clears them) and where its value is held.
// Indices below kDenseSlots use a flat array grown to the largest index seen; larger ones,
// which a SlotAllocator world never reaches but bytes off the wire may name, an ordered map,
// so a hostile index costs one node, not memory. The held values themselves are packed in
// one array kept in ascending slot order, so a walk (every client, every tick) streams
// through contiguous memory: an insertion appends and a removal marks, and the next walk (or
// a pile-up of removals) merges the appended entries in and drops the removed ones, in
// O(held + appended log appended). Lookups are O(1). After warm-up applying frames and
// walking allocate nothing. E is any movable value type: a position, render state. Pointers
// from get() and get_mut() stay valid until the next insert, apply or walk.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <iterator>
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

struct DeltaMirrorCounters {
    std::uint64_t frames_applied = 0;     // frames begun and not superseded
    std::uint64_t frames_lost = 0;        // sequence gaps seen (a late arrival is not subtracted)
    std::uint64_t frames_superseded = 0;  // of an epoch older than one applied: ignored
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

    // Starts applying frame seq of the epoch that began at frame `epoch` (a full baseline is
    // its own epoch's first frame: epoch = seq; nullopt: a frame that names no epoch). Records
    // it for acknowledgement (always), counts gaps, and when the frame opens an epoch newer
    // than the mirror's, clears every slot no frame of that epoch spoke about. Returns false
    // when the frame belongs to an older epoch; its inserts and removes are then ignored.
    bool begin(std::uint64_t seq, bool full, std::optional<std::uint64_t> epoch = std::nullopt) {
        if (applied_seq_ && seq > *applied_seq_ + 1) counters_.frames_lost += seq - *applied_seq_ - 1;
        if (!applied_seq_ || seq > *applied_seq_) applied_seq_ = seq;
        if (!acks_.observe(seq) && acks_.contains(seq)) counters_.duplicates += 1;
        if (full) epoch = seq;
        if ((full_floor_ && seq < *full_floor_) || (full_floor_ && epoch && *epoch < *full_floor_)) {
            counters_.frames_superseded += 1;
            active_ = false;
            return false;
        }
        active_ = true;
        current_seq_ = seq;
        counters_.frames_applied += 1;
        if (opens_epoch(seq, full, epoch)) {
            // A slot reset to its default is the same as no entry: touched by frame 0, empty.
            for (Slot& slot : dense_) {
                if (slot.touched_seq < *epoch || (full && slot.touched_seq <= seq)) {
                    drop(slot);
                    slot = Slot{};
                }
            }
            for (auto it = sparse_.begin(); it != sparse_.end();) {
                if (it->second.touched_seq < *epoch || (full && it->second.touched_seq <= seq)) {
                    drop(it->second);
                    it = sparse_.erase(it);
                } else {
                    ++it;
                }
            }
            full_floor_ = *epoch;
        }
        return true;
    }
    // Whether begin(seq, full, epoch) would clear slots (a full baseline, or the first frame
    // of a newer epoch to arrive).
    bool opens_epoch(std::uint64_t seq, bool full, std::optional<std::uint64_t> epoch) const {
        if (full) return !full_floor_ || seq >= *full_floor_;
        return epoch && (!full_floor_ || *epoch > *full_floor_) && *epoch <= seq;
    }

    // Within the frame begun last: puts value at key's slot, replacing whatever occupies it.
    // False when a newer frame already spoke about the slot (or the frame is superseded).
    bool insert(SlotKey key, E value) {
        if (!active_) return false;
        key = scheme(key);
        Slot& slot = slot_at(key.index);
        if (slot.touched_seq > current_seq_) return false;
        drop(slot);
        slot.touched_seq = current_seq_;
        if (removed_ > 64 && removed_ > held_count_) {
            // Many removals and no walk: compact now, so the array stays O(held).
            tidy();
        }
        if (!entries_.empty() && entries_.back().index >= key.index) sorted_ = false;
        slot.entry = static_cast<std::uint32_t>(entries_.size());
        entries_.push_back(Entry{key.index, key.generation, std::optional<E>(std::move(value))});
        digest_.insert(key.encode());
        ++held_count_;
        return true;
    }

    // Within the frame begun last: removes key. False when it was not held; a slot held by
    // another occupant is left alone and counted as a stale reference. Either way the slot
    // remembers that this frame spoke about it, so a late older frame cannot re-add it.
    bool remove(SlotKey key) {
        Slot* slot = speak_about(key);
        if (!slot || slot->entry == kNone) return false;
        if (entries_[slot->entry].generation != key.generation) {
            counters_.stale_refs += 1;
            return false;
        }
        drop(*slot);
        return true;
    }

    // Within the frame begun last: the slot of key is empty as of this frame, whatever
    // occupant it held (a frame's "left" list: the server's newest word on the slot). False
    // when nothing was held or a newer frame already spoke about the slot.
    bool retract(SlotKey key) {
        Slot* slot = speak_about(key);
        if (!slot || slot->entry == kNone) return false;
        drop(*slot);
        return true;
    }

    // Applies a whole frame: begin, then every retraction, then every insertion with
    // value_for(i, key) for the i-th entered key. Returns false when superseded.
    template <class ValueFor>
    bool apply(const DeltaPlan& frame, ValueFor&& value_for) {
        if (!begin(frame.seq, frame.full_baseline, frame.baseline_seq)) return false;
        for (std::uint64_t packed : frame.left) {
            if (const std::optional<SlotKey> key = SlotKey::decode(packed)) {
                retract(*key);
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
        if (!slot || slot->entry == kNone) return nullptr;
        const Entry& entry = entries_[slot->entry];
        if (entry.generation != key.generation) return nullptr;
        return &*entry.value;
    }
    // The occupant held at slot index, whatever its generation (nullopt when none).
    std::optional<SlotKey> held_at(std::uint32_t index) const {
        const Slot* slot = find(index);
        if (!slot || slot->entry == kNone) return std::nullopt;
        const Entry& entry = entries_[slot->entry];
        return SlotKey{entry.index, entry.generation};
    }
    // Like get, but a slot held by another occupant counts as a stale reference: this is the
    // path a game's updates take, so the count shows how often names outlive occupants.
    E* get_mut(SlotKey key) {
        key = scheme(key);
        const Slot* slot = find(key.index);
        if (!slot || slot->entry == kNone) return nullptr;
        Entry& entry = entries_[slot->entry];
        if (entry.generation != key.generation) {
            counters_.stale_refs += 1;
            return nullptr;
        }
        return &*entry.value;
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
    // The first frame of the newest epoch applied (nullopt before any full baseline or epoch).
    std::optional<std::uint64_t> epoch() const { return full_floor_; }

    // Replaces out with the held keys, packed and ascending.
    void keys(std::vector<std::uint64_t>& out) const {
        out.clear();
        for_each([&](SlotKey key, const E&) { out.push_back(key.encode()); });
    }
    // Visits every held key and value in ascending slot order.
    template <class F>
    void for_each(F&& f) const {
        tidy();
        for (const Entry& e : entries_) f(SlotKey{e.index, e.generation}, static_cast<const E&>(*e.value));
    }
    template <class F>
    void for_each_mut(F&& f) {
        tidy();
        for (Entry& e : entries_) f(SlotKey{e.index, e.generation}, *e.value);
    }
    std::size_t size() const { return held_count_; }
    bool empty() const { return held_count_ == 0; }

    // Drops everything held, keeping the acknowledgement state. The next report then
    // carries the empty set's digest while naming frames the server knows it sent, which
    // fails the drift check and brings a full baseline: this is how a client asks for a
    // resync, and why no resync message exists. (A new connection wants a new mirror.)
    void clear() {
        std::fill(dense_.begin(), dense_.end(), Slot{});
        sparse_.clear();
        entries_.clear();
        removed_ = 0;
        sorted_ = true;
        digest_.clear();
        held_count_ = 0;
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
    const DeltaMirrorCounters& counters() const { return counters_; }

    // Slot indices below this are stored in the flat array; a multiple of 64.
    static constexpr std::uint32_t kDenseSlots = std::uint32_t{1} << 16;

private:
    static constexpr std::uint32_t kNone = ~std::uint32_t{0};
    struct Slot {
        std::uint64_t touched_seq = 0;  // newest frame that spoke about this slot
        std::uint32_t entry = kNone;    // position in entries_; kNone: a tombstone (or never held)
    };
    struct Entry {
        std::uint32_t index = 0;
        std::uint16_t generation = 0;
        std::optional<E> value;  // empty: removed, dropped by the next tidy()
    };

    SlotKey scheme(SlotKey key) const { return generational_ ? key : key.ungenerational(); }

    // key's slot (key put in the current scheme), marked as spoken about by the frame begun
    // last; nullptr when no frame is active or a newer frame already spoke about the slot.
    Slot* speak_about(SlotKey& key) {
        if (!active_) return nullptr;
        key = scheme(key);
        Slot& slot = slot_at(key.index);
        if (slot.touched_seq > current_seq_) return nullptr;
        slot.touched_seq = current_seq_;
        return &slot;
    }

    // The slot at index, created (as "never spoken about") if absent.
    Slot& slot_at(std::uint32_t index) {
        if (index >= kDenseSlots) return sparse_[index];
        if (index >= dense_.size()) {
            // Powers of two from 64: a few growths while the world's slots are first seen.
            dense_.resize(std::max<std::size_t>(64, std::bit_ceil(std::size_t{index} + 1)));
        }
        return dense_[index];
    }
    const Slot* find(std::uint32_t index) const {
        if (index < dense_.size()) return &dense_[index];
        if (index < kDenseSlots) return nullptr;
        const auto it = sparse_.find(index);
        return it == sparse_.end() ? nullptr : &it->second;
    }

    void drop(Slot& slot) {
        if (slot.entry == kNone) return;
        Entry& e = entries_[slot.entry];
        digest_.remove(SlotKey{e.index, e.generation}.encode());
        e.value.reset();
        slot.entry = kNone;
        ++removed_;
        --held_count_;
    }

    // Brings entries_ back to ascending slot order without removed entries: the sorted run
    // the last tidy left, with removals dropped, merged with the appended tail, sorted. Then
    // every held slot learns its new position. Logically const: what is held does not change.
    void tidy() const {
        if (sorted_ && removed_ == 0) return;
        auto by_index = [](const Entry& a, const Entry& b) { return a.index < b.index; };
        std::size_t kept = 0;
        std::size_t run = 0;  // entries_[0, run) of the kept ones are ascending
        bool ascending = true;
        for (std::size_t i = 0; i < entries_.size(); ++i) {
            if (!entries_[i].value) continue;
            if (ascending && kept > 0 && entries_[kept - 1].index >= entries_[i].index) ascending = false;
            if (kept != i) entries_[kept] = std::move(entries_[i]);
            ++kept;
            if (ascending) run = kept;
        }
        entries_.resize(kept);
        if (run < kept) {
            std::sort(entries_.begin() + static_cast<std::ptrdiff_t>(run), entries_.end(), by_index);
            merged_.clear();
            merged_.reserve(entries_.capacity());
            std::merge(std::make_move_iterator(entries_.begin()),
                       std::make_move_iterator(entries_.begin() + static_cast<std::ptrdiff_t>(run)),
                       std::make_move_iterator(entries_.begin() + static_cast<std::ptrdiff_t>(run)),
                       std::make_move_iterator(entries_.end()), std::back_inserter(merged_), by_index);
            entries_.swap(merged_);
        }
        for (std::size_t i = 0; i < entries_.size(); ++i) {
            const std::uint32_t index = entries_[i].index;
            Slot& slot = index < kDenseSlots ? dense_[index] : sparse_.find(index)->second;
            slot.entry = static_cast<std::uint32_t>(i);
        }
        sorted_ = true;
        removed_ = 0;
    }

    // Mutable: walks tidy the packed array (see tidy()).
    mutable std::vector<Slot> dense_;               // indices below kDenseSlots
    mutable std::map<std::uint32_t, Slot> sparse_;  // indices from kDenseSlots up
    mutable std::vector<Entry> entries_;            // held values; see tidy()
    mutable std::vector<Entry> merged_;             // tidy()'s scratch, kept for its capacity
    mutable std::size_t removed_ = 0;               // removed entries still in entries_
    mutable bool sorted_ = true;                    // entries_ ascending by slot index
    std::size_t held_count_ = 0;
    SetDigest digest_;
    AckWindow acks_;
    std::optional<std::uint64_t> applied_seq_;
    std::optional<std::uint64_t> full_floor_;
    std::uint64_t current_seq_ = 0;
    bool active_ = false;
    bool generational_ = true;
    DeltaMirrorCounters counters_;
};

}  // namespace vantage
