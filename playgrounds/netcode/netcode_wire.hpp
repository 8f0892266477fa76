// The netcode playground's two messages, byte-exact, so the bandwidth meters count real
// bytes: the client's input packet (every unacknowledged input again, Overwatch style, plus
// unacknowledged shots and a clock echo) and the server's state packet (its time, the input
// acknowledgement, the player, the bots, shot verdicts and a clock echo). The layout is
// written down in playgrounds/netcode/README.md and pinned by golden-bytes tests.
//
// Times travel as varints in 1/16 ms (kTimeQuantum), positions as fixed-point at 1/16 px.
// Decoding is validation: a bad message returns a WireError and leaves the output empty.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "common/wire_trace.hpp"
#include "vantage/byte_io.hpp"
#include "vantage/vec.hpp"

namespace vantage::play {

inline constexpr double kTimeQuantum = 1.0 / 16.0;    // ms per time unit on the wire
inline constexpr float kPositionStep = 1.0f / 16.0f;  // px per position unit on the wire
inline constexpr std::size_t kMaxInputsPerPacket = 64;
inline constexpr std::size_t kMaxShotsPerPacket = 8;
inline constexpr std::size_t kMaxBots = 8;
inline constexpr std::size_t kMaxVerdicts = 8;

// Time (ms, >= 0) to its wire units, rounded; and back. Both sides use the decoded value.
std::uint64_t time_to_wire(double ms);
constexpr double time_from_wire(std::uint64_t units) {
    return static_cast<double>(units) * kTimeQuantum;
}
// Rounds a time to what the wire can carry, so a sender can record the value it sends.
inline double quantize_time(double ms) {
    return time_from_wire(time_to_wire(ms));
}

// One input: a direction (each axis -127..127, meaning -1..1) held for a duration.
struct MoveInput {
    std::int8_t dx = 0;
    std::int8_t dy = 0;
    std::uint16_t duration_units = 0;  // how long it is held, in kTimeQuantum ms
    Vec2 direction() const { return Vec2{static_cast<float>(dx), static_cast<float>(dy)} * (1.0f / 127.0f); }
    double duration_ms() const { return time_from_wire(duration_units); }
    bool operator==(const MoveInput&) const = default;
};

// A shot: where the client aimed, stamped with the server time of the state it was drawing.
struct ShotMsg {
    std::uint32_t id = 0;      // from 1, ascending per client
    double aim_time_ms = 0.0;  // server time of what the shooter saw (quantized)
    Vec2 aim{};                // px
    bool operator==(const ShotMsg&) const = default;
};

struct InputPacket {
    double client_time_ms = 0.0;  // the client's clock when sent (echoed back for RTT)
    double echo_server_ms = 0.0;  // newest server stamp received (0: none yet)
    double echo_hold_ms = 0.0;    // how long ago that stamp arrived, at send time
    std::uint32_t first_seq = 0;  // sequence of inputs[0]; the rest follow consecutively
    std::vector<MoveInput> inputs;
    std::vector<ShotMsg> shots;
    // Back to the default values, keeping the lists' capacity.
    void clear();
};

struct ShotVerdict {
    std::uint32_t id = 0;
    bool hit_rewound = false;  // judged against the target rewound to the shot's aim time
    bool hit_present = false;  // judged against the target where it is on arrival
    Vec2 rewound{};            // nearest target's rewound position (px), for drawing
    bool operator==(const ShotVerdict&) const = default;
};

struct StatePacket {
    double server_time_ms = 0.0;  // the tick this state belongs to
    std::uint32_t acked_seq = 0;  // newest input applied to `player`
    double echo_client_ms = 0.0;  // newest client send time received (0: none yet)
    double echo_hold_ms = 0.0;    // how long that packet waited for this tick
    Vec2 player{};
    std::vector<Vec2> bots;
    std::uint32_t shot_ack = 0;  // newest shot judged
    std::vector<ShotVerdict> verdicts;
    // Back to the default values, keeping the lists' capacity.
    void clear();
};

inline constexpr std::uint8_t kInputType = 0x55;  // 'U'
inline constexpr std::uint8_t kStateType = 0x53;  // 'S'

// Encoders clear `out` first; a value the format cannot hold (a NaN position) leaves
// out.ok() false and the caller does not send. Decoders decode into `out` in place, so a
// reused packet does not allocate, and leave it cleared on any error.
void encode_input(ByteWriter& out, const InputPacket& packet);
void encode_state(ByteWriter& out, const StatePacket& packet);
// With a `trace`, the decoder also narrates: every field it reads, in order (cleared first;
// on an error the fields up to it, the last one the field that failed).
WireError decode_input(std::span<const std::uint8_t> bytes, InputPacket& out, std::vector<WireField>* trace = nullptr);
WireError decode_state(std::span<const std::uint8_t> bytes, StatePacket& out, std::vector<WireField>* trace = nullptr);

}  // namespace vantage::play
