// The horde's client half: what one client does with the bytes it is sent.
//
// It decodes every frame its transport delivers (a bad frame is counted and dropped),
// rebuilds the relevant set in a DeltaMirror, catches each position up by the frame's age
// with the enemies' own rule, keeps the newest players and crowd summaries, and answers with
// an acknowledgement. Between frames it moves what it holds by the same rule. It never sees
// the server's world: truth-side readouts (phantoms, render error) are measured by whoever
// holds the truth, reading this half's mirror (page lanes), or against an explicit truth
// sample (rooms).
#pragma once

#include <cstdint>
#include <vector>

#include "common/transport.hpp"
#include "horde/horde_wire.hpp"
#include "vantage/delta_mirror.hpp"

namespace vantage::play {

// A held enemy as one client draws it.
struct HeldEnemy {
    Vec2 position;
    Vec2 offset;               // chase_offset(key): where it heads around its target
    std::uint32_t target = 0;  // index of the player it chases, as the client sees it
    HordeRefs sent;            // the newest values received for it (what predicted corrections name)
    // Entered by a repeat (sent without its position) while not held: no position yet, so not
    // drawn, measured or moved; the frame with its position or a correction ends it.
    bool awaiting = false;
};

// What one receive() took in.
struct HordeReceived {
    std::size_t frames = 0;      // decoded and applied
    std::size_t bytes_down = 0;  // of those frames
    std::size_t bytes_up = 0;    // the acknowledgement sent (0: none)
};

// Buffers receive() reuses; clients on one thread (a page's lanes) share one.
struct HordeClientScratch {
    std::vector<std::uint8_t> packet;
    HordePacket decoded;
    ByteWriter writer;
};

class HordeClientHalf {
public:
    // Decodes everything `link` delivered by now_ms, applies it, and sends one
    // acknowledgement if anything arrived.
    HordeReceived receive(Transport& link, double now_ms, HordeClientScratch& scratch);
    // Moves every held enemy by dt_s with the enemy rule. `tick` staggers the nearest-player
    // search exactly as the server's world does (pass the client's own tick count).
    void advance(float dt_s, std::uint64_t tick);
    // Applies one already-received message (the room client routes frames here); false when
    // it does not decode.
    bool apply_frame(std::span<const std::uint8_t> bytes, double now_ms, HordeClientScratch& scratch);
    // Encodes the acknowledgement of everything applied so far into w; false if none yet.
    bool encode_ack_into(ByteWriter& w) const;

    const DeltaMirror<HeldEnemy>& mirror() const { return mirror_; }
    const std::vector<Vec2>& players() const { return players_; }   // as last heard
    const std::vector<CrowdBlob>& crowd() const { return crowd_; }  // as last heard
    bool heard() const { return heard_; }
    std::uint64_t newest_ms() const { return newest_ms_; }  // server time of the newest frame
    std::uint64_t decode_errors() const { return decode_errors_; }
    // Predicted corrections naming a value this client does not hold (dropped): the value's
    // frame arrived after the server's record of it was made but the enemy was not held then,
    // or the enemy was made afresh since.
    std::uint64_t unresolved() const { return unresolved_; }
    // Whether the mirror agreed with the digest of the newest frame it settled against
    // (false before any): a converged client holds exactly the server's set for it.
    bool agreed() const { return agreed_; }
    // Held enemies awaiting a position (entered by a repeat whose positioned entry was lost or is
    // late): members of the set, but not drawn.
    std::size_t awaiting() const;

private:
    DeltaMirror<HeldEnemy> mirror_;
    std::vector<Vec2> players_;
    std::vector<CrowdBlob> crowd_;
    std::uint64_t newest_ms_ = 0;
    bool heard_ = false;
    bool agreed_ = false;
    std::uint64_t decode_errors_ = 0;
    std::uint64_t unresolved_ = 0;
    // Per slot index below kMaxTrackedSlot: the generation of the newest entry held there, so a
    // predicted correction (which names a slot, not an occupant) finds its enemy.
    static constexpr std::uint32_t kMaxTrackedSlot = 1u << 16;
    std::vector<std::uint16_t> generation_at_;
};

}  // namespace vantage::play
