#include <gtest/gtest.h>

#include <vector>

#include "netcode/netcode_wire.hpp"
#include "support/fuzz_corpus.hpp"
#include "support/netcode_fuzz.hpp"
#include "vantage/random.hpp"

namespace vantage::play {
namespace {

using Bytes = std::vector<std::uint8_t>;

Bytes encode(const InputPacket& p) {
    ByteWriter w;
    encode_input(w, p);
    EXPECT_TRUE(w.ok());
    return {w.bytes().begin(), w.bytes().end()};
}
Bytes encode(const StatePacket& p) {
    ByteWriter w;
    encode_state(w, p);
    EXPECT_TRUE(w.ok());
    return {w.bytes().begin(), w.bytes().end()};
}

bool same(const InputPacket& a, const InputPacket& b) {
    return a.client_time_ms == b.client_time_ms && a.echo_server_ms == b.echo_server_ms &&
           a.echo_hold_ms == b.echo_hold_ms && a.first_seq == b.first_seq && a.inputs == b.inputs && a.shots == b.shots;
}
bool same(const StatePacket& a, const StatePacket& b) {
    return a.server_time_ms == b.server_time_ms && a.acked_seq == b.acked_seq && a.echo_client_ms == b.echo_client_ms &&
           a.echo_hold_ms == b.echo_hold_ms && a.player == b.player && a.bots == b.bots && a.shot_ack == b.shot_ack &&
           a.verdicts == b.verdicts;
}

InputPacket golden_input() {
    InputPacket p;
    p.client_time_ms = 16.0;
    p.first_seq = 7;
    p.inputs = {MoveInput{127, -127, 267}, MoveInput{0, 0, 1}};
    p.shots = {ShotMsg{1, 0.5, {1.0f, 1.0f}}};
    return p;
}
StatePacket golden_state() {
    StatePacket p;
    p.server_time_ms = 100.0;
    p.acked_seq = 3;
    p.player = {1.5f, -0.0625f};
    p.bots = {{0.0f, 2.0f}};
    p.shot_ack = 2;
    p.verdicts = {ShotVerdict{2, true, false, {0.0f, 0.0f}}};
    return p;
}

// The layouts documented in playgrounds/netcode/README.md.
TEST(NetcodeWire, AnInputPacketEncodesToTheDocumentedBytes) {
    const Bytes expected = {0x55, 0x80, 0x02, 0x00, 0x00, 0x02, 0x07, 0x7F, 0x81, 0x8B,
                            0x02, 0x00, 0x00, 0x01, 0x01, 0x01, 0x08, 0x20, 0x20};
    EXPECT_EQ(encode(golden_input()), expected);
    InputPacket back;
    ASSERT_EQ(decode_input(expected, back), WireError::Ok);
    EXPECT_TRUE(same(back, golden_input()));
}

TEST(NetcodeWire, AStatePacketEncodesToTheDocumentedBytes) {
    const Bytes expected = {0x53, 0xC0, 0x0C, 0x03, 0x00, 0x00, 0x30, 0x01, 0x01,
                            0x00, 0x40, 0x02, 0x01, 0x02, 0x01, 0x00, 0x00};
    EXPECT_EQ(encode(golden_state()), expected);
    StatePacket back;
    ASSERT_EQ(decode_state(expected, back), WireError::Ok);
    EXPECT_TRUE(same(back, golden_state()));
}

// The packet inspector's narration: the fields tile the message byte for byte, in order,
// with the decoded values, and asking for them changes nothing about the decode.
TEST(NetcodeWire, TheDecodersNarrateEveryFieldTheyRead) {
    for (const Bytes& bytes : {encode(golden_input()), encode(golden_state())}) {
        std::vector<WireField> fields;
        InputPacket in;
        StatePacket st;
        const WireError e =
            bytes[0] == kInputType ? decode_input(bytes, in, &fields) : decode_state(bytes, st, &fields);
        ASSERT_EQ(e, WireError::Ok);
        EXPECT_TRUE(fuzz::narration_tiles(bytes, fields));
        for (const WireField& f : fields) EXPECT_FALSE(f.value.empty()) << f.name;
    }
    std::vector<WireField> fields;
    InputPacket in;
    ASSERT_EQ(decode_input(encode(golden_input()), in, &fields), WireError::Ok);
    EXPECT_TRUE(same(in, golden_input()));
    ASSERT_GE(fields.size(), 8u);
    EXPECT_EQ(fields[0].name, "type");
    EXPECT_EQ(fields[1].name, "client_time");
    EXPECT_EQ(fields[1].value, "16 ms");
    EXPECT_EQ(fields[1].size, 2u);  // 256 units of 1/16 ms, a two-byte varint
    EXPECT_EQ(fields[5].name, "first_seq");
    EXPECT_EQ(fields[5].value, "#7");
    EXPECT_EQ(fields[6].name, "input #7 direction");
    EXPECT_EQ(fields[6].value, "(127, -127) / 127");
    // A bad message: the fields up to the failure, then the error.
    Bytes bad = encode(golden_input());
    bad.push_back(0);
    EXPECT_EQ(decode_input(bad, in, &fields), WireError::TrailingBytes);
    EXPECT_EQ(fields.back().name, "error");
}

TEST(NetcodeWire, RandomPacketsRoundTripExactly) {
    for (std::uint64_t seed = 1; seed <= 200; ++seed) {
        XorShift rng(seed);
        auto time = [&] { return quantize_time(rng.range(0.0f, 1.0e6f)); };
        auto pos = [&] {
            return Vec2{static_cast<float>(rng.below(16000)) / 16.0f - 500.0f,
                        static_cast<float>(rng.below(16000)) / 16.0f};
        };
        InputPacket in;
        in.client_time_ms = time();
        in.echo_server_ms = time();
        in.echo_hold_ms = time();
        in.first_seq = 1 + static_cast<std::uint32_t>(rng.below(1u << 30));
        for (std::uint64_t i = rng.below(kMaxInputsPerPacket + 1); i > 0; --i)
            in.inputs.push_back({static_cast<std::int8_t>(static_cast<int>(rng.below(255)) - 127),
                                 static_cast<std::int8_t>(static_cast<int>(rng.below(255)) - 127),
                                 static_cast<std::uint16_t>(rng.below(65536))});
        if (in.inputs.empty()) in.first_seq = 0;
        std::uint32_t id = 0;
        for (std::uint64_t i = rng.below(kMaxShotsPerPacket + 1); i > 0; --i)
            in.shots.push_back({id += 1 + static_cast<std::uint32_t>(rng.below(5)), time(), pos()});
        InputPacket in_back;
        ASSERT_EQ(decode_input(encode(in), in_back), WireError::Ok) << "seed " << seed;
        EXPECT_TRUE(same(in, in_back)) << "seed " << seed;

        StatePacket st;
        st.server_time_ms = time();
        st.acked_seq = static_cast<std::uint32_t>(rng.next());
        st.echo_client_ms = time();
        st.echo_hold_ms = time();
        st.player = pos();
        for (std::uint64_t i = rng.below(kMaxBots + 1); i > 0; --i) st.bots.push_back(pos());
        st.shot_ack = static_cast<std::uint32_t>(rng.next());
        for (std::uint64_t i = rng.below(kMaxVerdicts + 1); i > 0; --i)
            st.verdicts.push_back({static_cast<std::uint32_t>(rng.next()), rng.chance(0.5f), rng.chance(0.5f), pos()});
        StatePacket st_back;
        ASSERT_EQ(decode_state(encode(st), st_back), WireError::Ok) << "seed " << seed;
        EXPECT_TRUE(same(st, st_back)) << "seed " << seed;
    }
}

TEST(NetcodeWire, EveryTruncationIsRefusedAndLeavesTheOutputEmpty) {
    const Bytes input = encode(golden_input());
    for (std::size_t n = 0; n < input.size(); ++n) {
        InputPacket out;
        out.first_seq = 99;
        EXPECT_NE(decode_input(std::span(input).first(n), out), WireError::Ok) << n << " bytes";
        EXPECT_EQ(out.first_seq, 0u);
        EXPECT_TRUE(out.inputs.empty());
    }
    const Bytes state = encode(golden_state());
    for (std::size_t n = 0; n < state.size(); ++n) {
        StatePacket out;
        out.acked_seq = 99;
        EXPECT_NE(decode_state(std::span(state).first(n), out), WireError::Ok) << n << " bytes";
        EXPECT_EQ(out.acked_seq, 0u);
        EXPECT_TRUE(out.bots.empty());
    }
}

TEST(NetcodeWire, TrailingBytesAndUnknownTypesAreRefused) {
    Bytes input = encode(golden_input());
    input.push_back(0);
    InputPacket in;
    EXPECT_EQ(decode_input(input, in), WireError::TrailingBytes);
    StatePacket st;
    EXPECT_EQ(decode_state(encode(golden_input()), st), WireError::UnknownType);
    EXPECT_EQ(decode_input(encode(golden_state()), in), WireError::UnknownType);
}

TEST(NetcodeWire, FieldsOutsideTheirRulesAreRefused) {
    InputPacket in;
    Bytes axis = encode(golden_input());
    axis[7] = 0x80;  // -128 is not a direction
    EXPECT_EQ(decode_input(axis, in), WireError::OutOfRange);
    Bytes seq = encode(golden_input());
    seq[6] = 0x00;  // inputs numbered from 0
    EXPECT_EQ(decode_input(seq, in), WireError::OutOfRange);
    InputPacket shots = golden_input();
    shots.shots.push_back(shots.shots[0]);  // the same id twice
    EXPECT_EQ(decode_input(encode(shots), in), WireError::NotAscending);
    Bytes many = encode(golden_input());
    many[5] = static_cast<std::uint8_t>(kMaxInputsPerPacket + 1);
    EXPECT_EQ(decode_input(many, in), WireError::TooMany);

    StatePacket st;
    Bytes flags = encode(golden_state());
    flags[14] = 0x04;  // a verdict flag no one defined
    EXPECT_EQ(decode_state(flags, st), WireError::Malformed);
    Bytes bots = encode(golden_state());
    bots[8] = static_cast<std::uint8_t>(kMaxBots + 1);
    EXPECT_EQ(decode_state(bots, st), WireError::TooMany);
}

TEST(NetcodeWire, TimesTravelInSixteenthsOfAMillisecond) {
    EXPECT_EQ(time_to_wire(0.0), 0u);
    EXPECT_EQ(time_to_wire(-3.0), 0u);
    EXPECT_EQ(time_to_wire(1.0), 16u);
    EXPECT_EQ(time_to_wire(1000.0 / 60.0), 267u);
    EXPECT_DOUBLE_EQ(quantize_time(16.7), 16.6875);
}

// Found by the fuzz target: a time of 2^56 units decoded to a double the encoder wrote back
// as a different number. Times the encoder cannot reproduce are refused.
TEST(NetcodeWire, ATimeBeyondWhatADoubleHoldsExactlyIsRefused) {
    const Bytes found = {0x55, 0x80, 0x02, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
                         0xFF, 0xFF, 0x7A, 0x00, 0x01, 0x24, 0x00, 0x00, 0x00};
    InputPacket in;
    EXPECT_EQ(decode_input(found, in), WireError::OutOfRange);
    EXPECT_FALSE(fuzz::fuzz_input_packet(found));
}

// Seeded fuzz over both decoders (the libFuzzer target's bodies): mutated packets are refused
// or re-encode to the very same bytes, and their narration tiles them.
TEST(NetcodeWire, MutatedPacketsAreRefusedOrReencodeExactly) {
    XorShift rng(23);
    const Bytes seeds[] = {encode(golden_input()), encode(golden_state())};
    int accepted[2] = {0, 0};
    for (int trial = 0; trial < 6000; ++trial) {
        const int which = trial % 2;
        Bytes b = trial % 10 < 2 ? noise(rng, which == 0 ? kInputType : kStateType) : seeds[which];
        if (trial % 10 >= 2) mutate(b, rng);
        if (which == 0 ? fuzz::fuzz_input_packet(b) : fuzz::fuzz_state_packet(b)) ++accepted[which];
    }
    EXPECT_GT(accepted[0], 0);
    EXPECT_GT(accepted[1], 0);
}

}  // namespace
}  // namespace vantage::play
